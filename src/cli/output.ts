/**
 * Where `weft run` writes its JSON: a file (`--out`, opened before the run so that a bad path fails
 * at once) or stdout, streamed frame by frame so that memory stays flat however many frames a run
 * has, with backpressure honoured and every byte flushed before the process exits (a pipe such as
 * `weft run … | wc -c` is asynchronous in Node: exiting after write() would cut it short). A run
 * that fails still ends its document: the frames it had, and the error.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { WeftInputError } from '../core/errors.ts';

/** Characters of one document written per write() at most (keeps each chunk small). */
const CHUNK = 1 << 16;

export class JsonOutput {
  private frames = 0;

  private constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly file: WriteStream | null,
  ) {}

  /** Opens `path` for writing (an error naming `--out` when it cannot be), or stdout. */
  static async open(path: string | undefined): Promise<JsonOutput> {
    if (path === undefined) return new JsonOutput(process.stdout, null);
    const file = createWriteStream(path);
    await new Promise<void>((resolve, reject) => {
      file.once('open', () => resolve());
      file.once('error', (error: NodeJS.ErrnoException) =>
        reject(new WeftInputError('--out', `cannot write '${path}': ${error.code ?? error.message}`)),
      );
    });
    return new JsonOutput(file, file);
  }

  /** Starts the document: `{"key": value, …, "frames": [`. */
  begin(head: Record<string, unknown>): Promise<void> {
    const fields = Object.entries(head).map(
      ([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`,
    );
    return this.write(`{${[...fields, '"frames":['].join(',')}`);
  }

  /** One element of `frames`. */
  frame(frame: unknown): Promise<void> {
    return this.write((this.frames++ > 0 ? ',' : '') + JSON.stringify(frame));
  }

  /** Ends `frames`, adds the remaining fields, and flushes everything (closes a file). */
  async end(tail: Record<string, unknown>): Promise<void> {
    const fields = Object.entries(tail).map(
      ([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`,
    );
    await this.write(`]${fields.join('')}}\n`);
    if (this.file)
      await new Promise<void>((resolve, reject) => this.file!.end(() => resolve()).once('error', reject));
  }

  /**
   * Ends a run that failed: the frames so far, then `"error": {name, message}` in place of the
   * statistics, so the output is still one valid document that says what went wrong.
   */
  async fail(error: unknown): Promise<void> {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    await this.end({ error: { name, message } });
  }

  /** Writes `text` and resolves once it is flushed (or, when the stream is full, drained). */
  private async write(text: string): Promise<void> {
    for (let at = 0; at < text.length; at += CHUNK) {
      const chunk = text.slice(at, at + CHUNK);
      await new Promise<void>((resolve, reject) => {
        this.stream.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
    }
  }
}
