/**
 * Wavefront OBJ, the geometry part that a mass-spring model needs: `v` and `f` in, `v` and `f`
 * out (the format every 3-D tool reads; Blender: File → Import → Wavefront (.obj)). Reference:
 * Wavefront's "Object Files (.obj)" specification, Appendix B1 of the Advanced Visualizer manual.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';
import { exactText } from './float-text.ts';

/** The polygons of a mesh, as OBJ stores them: face f is `faceIndices[faceOffsets[f] .. faceOffsets[f + 1])`. */
export interface ObjFaces {
  /** [faces + 1] */
  readonly faceOffsets: ArrayLike<number>;
  /** 0-based vertex indices of every face, in order. */
  readonly faceIndices: ArrayLike<number>;
}

/** What {@link loadObj} reads. */
export interface ObjMesh extends ObjFaces {
  /** xyz per vertex, [3n], in the file's units (Weft reads them as metres). */
  readonly positions: Float64Array;
  /** Each face fan-triangulated, (v0, vi, vi+1), 0-based, [3t]: what meshToModel takes. */
  readonly triangles: Uint32Array;
  /** The file's line (1-based) of each triangle's face, [t], for error messages. */
  readonly triangleLines: Uint32Array;
  /** The file's line (1-based) of each vertex, [n], for error messages. */
  readonly vertexLines: Uint32Array;
  readonly faceOffsets: Uint32Array;
  readonly faceIndices: Uint32Array;
}

/** Statements that carry nothing a mass-spring model uses: read and skipped. */
const IGNORED = new Set(['vt', 'vn', 'vp', 'o', 'g', 's', 'usemtl', 'mtllib']);

/** A decimal number as OBJ writes them (digits, point, exponent; no hex, no Infinity). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads the vertices and faces of an OBJ file. Faces may be triangles, quads or any polygon
 * (fan-triangulated from its first vertex, which suits the convex polygons 3-D tools write); a
 * vertex reference may be `v`, `v/vt`, `v//vn` or `v/vt/vn`, and negative (relative to the
 * vertices so far: −1 is the last). `v` takes 3 coordinates, and ignores a 4th (w) or colours.
 * `vt`, `vn`, `vp`, `o`, `g`, `s`, `usemtl`, `mtllib` and comments are skipped; a trailing `\`
 * joins the next line. Anything else — another statement (`l`, `p`, curves), a bad number, a
 * face of fewer than 3 vertices or an index out of range — is a {@link WeftInputError} whose
 * field is `<source>:<line>` (default source `line `, as in `line 12`).
 */
export function loadObj(text: string, options: { source?: string } = {}): ObjMesh {
  if (typeof text !== 'string') throw new WeftInputError('obj', `must be text, got ${describeValue(text)}`);
  const where = (line: number): string => (options.source ? `${options.source}:${line}` : `line ${line}`);
  const positions: number[] = [];
  const faceOffsets: number[] = [0];
  const faceIndices: number[] = [];
  const triangles: number[] = [];
  const triangleLines: number[] = [];
  const vertexLines: number[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n|\r/);
  for (let l = 0; l < lines.length; l++) {
    const lineNumber = l + 1;
    let line = lines[l]!;
    while (line.endsWith('\\') && l + 1 < lines.length) line = line.slice(0, -1) + ' ' + lines[++l]!;
    const words = line.replace(/#.*/, '').trim().split(/\s+/);
    const keyword = words[0]!;
    if (keyword === '' || IGNORED.has(keyword)) continue;
    const field = where(lineNumber);
    if (keyword === 'v') {
      if (words.length < 4)
        throw new WeftInputError(field, `a vertex needs 3 coordinates (v x y z), got ${words.length - 1}`);
      for (const word of words.slice(1, 4)) {
        const x = Number(word);
        if (!NUMBER.test(word) || !Number.isFinite(x))
          throw new WeftInputError(field, `vertex coordinate '${word.slice(0, 40)}' is not a finite decimal number`); // prettier-ignore
        positions.push(x);
      }
      vertexLines.push(lineNumber);
    } else if (keyword === 'f') {
      const face = words.slice(1).map((word) => vertexIndex(word, positions.length / 3, field));
      if (face.length < 3)
        throw new WeftInputError(field, `a face needs at least 3 vertices, got ${face.length}`);
      faceIndices.push(...face);
      faceOffsets.push(faceIndices.length);
      for (let k = 1; k + 1 < face.length; k++) {
        triangles.push(face[0]!, face[k]!, face[k + 1]!);
        triangleLines.push(lineNumber);
      }
    } else {
      throw new WeftInputError(field, `unsupported statement '${keyword.slice(0, 40)}' (Weft reads v and f, and skips ${[...IGNORED].join(', ')})`); // prettier-ignore
    }
  }
  if (positions.length === 0) throw new WeftInputError(where(lines.length), 'the file has no vertices (v)');
  if (triangles.length === 0) throw new WeftInputError(where(lines.length), 'the file has no faces (f)');
  return {
    positions: Float64Array.from(positions),
    triangles: Uint32Array.from(triangles),
    triangleLines: Uint32Array.from(triangleLines),
    vertexLines: Uint32Array.from(vertexLines),
    faceOffsets: Uint32Array.from(faceOffsets),
    faceIndices: Uint32Array.from(faceIndices),
  };
}

/** The 0-based vertex of a face's `v`, `v/vt`, `v//vn` or `v/vt/vn` (1-based, or negative: relative). */
function vertexIndex(word: string, vertexCount: number, field: string): number {
  const text = word.split('/')[0]!;
  const index = Number(text);
  if (!/^[+-]?\d+$/.test(text) || index === 0)
    throw new WeftInputError(field, `face vertex '${word.slice(0, 40)}' is not a vertex number (1, 2, … or −1 for the last)`); // prettier-ignore
  const resolved = index > 0 ? index - 1 : vertexCount + index;
  if (resolved < 0 || resolved >= vertexCount)
    throw new WeftInputError(field, `face vertex ${index} is out of range: ${vertexCount} vertices so far (1 to ${vertexCount}, or −1 to −${vertexCount})`); // prettier-ignore
  return resolved;
}

/** Options of {@link writeObj}. */
export interface WriteObjOptions {
  /** Lines written as `# …` comments at the top. */
  comments?: readonly string[];
  /** The object's name (`o name`: Blender names the imported object so). Default: none. */
  name?: string;
  /**
   * The positions are float32 values (WebGPU, or the CPU in f32): write each with the fewest
   * digits that read back as the same float32. Otherwise each reads back as the same float64.
   */
  float32?: boolean;
}

/**
 * An OBJ file of `positions` (xyz per vertex) and `faces`: triangles (0-based, three per
 * triangle) or polygons ({@link ObjFaces}, e.g. what {@link loadObj} read). Written as `v x y z`
 * and `f a b c …` (1-based), which Blender and every other OBJ reader import; every coordinate
 * reads back bit-exactly (see `float32`).
 */
export function writeObj(
  positions: ArrayLike<number>,
  faces: ObjFaces | ArrayLike<number>,
  options: WriteObjOptions = {},
): string {
  const float32 = options.float32 ?? false;
  const out: string[] = (options.comments ?? []).map((comment) => `# ${comment.replace(/[\r\n]+/g, ' ')}`); // prettier-ignore
  if (options.name !== undefined) out.push(`o ${options.name.replace(/\s+/g, '_') || 'mesh'}`);
  for (let v = 0; 3 * v < positions.length; v++)
    out.push(`v ${exactText(positions[3 * v]!, float32)} ${exactText(positions[3 * v + 1]!, float32)} ${exactText(positions[3 * v + 2]!, float32)}`); // prettier-ignore
  const polygons = 'faceOffsets' in faces;
  const indices = polygons ? faces.faceIndices : faces;
  const faceCount = polygons ? faces.faceOffsets.length - 1 : Math.floor(faces.length / 3);
  const start = (f: number): number => (polygons ? faces.faceOffsets[f]! : 3 * f);
  for (let f = 0; f < faceCount; f++) {
    const corners: number[] = [];
    for (let k = start(f); k < start(f + 1); k++) corners.push(indices[k]! + 1);
    out.push(`f ${corners.join(' ')}`);
  }
  return `${out.join('\n')}\n`;
}
