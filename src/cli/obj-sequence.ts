/**
 * `--obj-sequence DIR`: every frame of a run as its own OBJ file, DIR/frame_000000.obj,
 * frame_000001.obj, … (frame numbers, not steps), with the scene's faces — a sequence that
 * Blender's OBJ importer reads one file at a time, and sequence importers (Stop-motion-OBJ) as an
 * animation. Coordinates read back bit-exactly as the frames' values (float32 or float64).
 */
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftInputError } from '../core/errors.ts';
import { writeObj, type ObjFaces } from '../model/obj.ts';
import type { Frame } from './frames.ts';
import { OBJ_SEQUENCE_FLAG } from './mesh-flags.ts';

/** The file name of frame `index`. */
export function objFrameName(index: number): string {
  return `frame_${String(index).padStart(6, '0')}.obj`;
}

export class ObjSequence {
  private frames = 0;

  private constructor(
    private readonly directory: string,
    private readonly faces: ObjFaces,
    private readonly scene: string,
  ) {}

  /** Creates `directory` (and its parents) when missing; a path that cannot be is an error naming the flag. */
  static open(directory: string, faces: ObjFaces, scene: string): ObjSequence {
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new WeftInputError(`--${OBJ_SEQUENCE_FLAG}`, `cannot create '${directory}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`); // prettier-ignore
    }
    return new ObjSequence(directory, faces, scene);
  }

  /** Writes the next frame's file. Its positions are the frame's: already printed exactly. */
  async write(frame: Frame): Promise<void> {
    const name = objFrameName(this.frames++);
    const text = writeObj(frame.positions, this.faces, {
      comments: [`weft ${this.scene}: frame ${this.frames - 1}, step ${frame.step}, t = ${frame.time} s`],
      name: 'weft',
    });
    try {
      await writeFile(join(this.directory, name), text);
    } catch (error) {
      throw new WeftInputError(`--${OBJ_SEQUENCE_FLAG}`, `cannot write '${join(this.directory, name)}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`); // prettier-ignore
    }
  }
}
