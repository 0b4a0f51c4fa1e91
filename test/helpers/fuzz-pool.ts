/**
 * Runs fuzz cases in a worker thread (test/helpers/fuzz-worker.mjs) with a time limit per case:
 * a case that has not answered by then — a synchronous loop that never ends included — is a hang;
 * the worker is terminated and the next case gets a fresh one. A worker that dies (out of memory,
 * an uncaught error) fails the case it was running.
 */
import { Worker } from 'node:worker_threads';
import type { FuzzCase, Outcome } from './fuzz-run.ts';

interface Pending {
  id: number;
  resolve: (outcome: Outcome) => void;
  timer: ReturnType<typeof setTimeout>;
  started: number;
}

const failure = (failure: 'hang' | 'crash', message: string, ms: number): Outcome => ({
  kind: 'failure',
  stage: 'run',
  failure,
  code: failure,
  name: failure === 'hang' ? 'timeout' : 'worker',
  message,
  steps: 0,
  notes: [],
  ms,
});

export class WorkerPool {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private pending: Pending | null = null;
  private nextId = 0;
  /** Workers started (1 + restarts after hangs and deaths). */
  started = 0;
  /** Unhandled rejections reported by a worker, with the case running (or last run) then. */
  readonly unhandled: string[] = [];

  constructor(private readonly timeoutMs: number) {}

  private start(): Promise<void> {
    this.started++;
    const worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), {
      // The main thread's stack (about 1 MB), so that a recursion that overflows in the CLI
      // overflows here too; a heap cap, so that a runaway allocation ends this worker only.
      resourceLimits: { stackSizeMb: 1, maxOldGenerationSizeMb: 2048 },
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on(
        'message',
        (message: { ready?: true; id?: number; outcome?: Outcome; unhandled?: string }) => {
          if (message.ready) resolve();
          else if (message.unhandled !== undefined) this.unhandled.push(message.unhandled);
          else if (this.pending && message.id === this.pending.id) this.settle(message.outcome!);
        },
      );
      const died = (why: string): void => {
        reject(new Error(`the fuzz worker did not start: ${why}`));
        if (this.worker !== worker) return; // terminated on purpose
        this.worker = null;
        if (this.pending) this.settle(failure('crash', `the worker died: ${why}`, performance.now() - this.pending.started)); // prettier-ignore
      };
      worker.on('error', (error) => died(`${error.name}: ${error.message}`));
      worker.on('exit', (code) => died(`exit code ${code}`));
    });
    return this.ready;
  }

  private settle(outcome: Outcome): void {
    const pending = this.pending!;
    this.pending = null;
    clearTimeout(pending.timer);
    pending.resolve(outcome);
  }

  /** The case's outcome; a hang after `timeoutMs`. */
  async run(fuzzCase: FuzzCase): Promise<Outcome> {
    if (!this.worker) await this.start();
    else await this.ready;
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise<Outcome>((resolve) => {
      const started = performance.now();
      const timer = setTimeout(() => {
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        this.settle(failure('hang', `no answer within ${this.timeoutMs} ms`, performance.now() - started));
      }, this.timeoutMs);
      this.pending = { id, resolve, timer, started };
      worker.postMessage({ id, fuzzCase });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}
