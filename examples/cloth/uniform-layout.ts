/**
 * Uniform structs written by member name at the offsets wgsl_reflect reads from the WGSL, so the
 * host and the shader cannot drift apart (no hand-counted byte offsets).
 */
import { WgslReflect, type TypeInfo } from 'wgsl_reflect/wgsl_reflect.module.js';

type Scalar = 'f32' | 'u32' | 'i32';
type Value = number | boolean | ArrayLike<number>;

/** One WGSL struct's layout and a buffer of its size that {@link UniformStruct.write} fills. */
export class UniformStruct {
  /** Bytes of the struct, rounded up to 16 (a uniform buffer's binding granularity). */
  readonly size: number;
  private readonly members: ReadonlyMap<string, { offset: number; scalar: Scalar; count: number }>;
  private readonly bytes: ArrayBuffer;
  private readonly view: DataView;

  constructor(
    code: string,
    readonly name: string,
  ) {
    const info = new WgslReflect(code).structs.find((s) => s.name === name);
    if (!info) throw new Error(`the WGSL declares no struct ${name}`);
    this.size = Math.ceil(info.size / 16) * 16;
    this.members = new Map(info.members.map((m) => [m.name, { offset: m.offset, ...scalarOf(m.type) }]));
    this.bytes = new ArrayBuffer(this.size);
    this.view = new DataView(this.bytes);
  }

  /** Sets every member (a missing or unknown one is an error) and returns the struct's bytes. */
  write(values: Readonly<Record<string, Value>>): ArrayBuffer {
    for (const [member, { offset, scalar, count }] of this.members) {
      const value = values[member];
      if (value === undefined) throw new Error(`${this.name}.${member} was not given a value`);
      const components = typeof value === 'number' || typeof value === 'boolean' ? [Number(value)] : value;
      if (components.length !== count)
        throw new Error(`${this.name}.${member} takes ${count} components, got ${components.length}`);
      for (let c = 0; c < count; c++) {
        const at = offset + 4 * c;
        const x = components[c]!;
        if (scalar === 'f32') this.view.setFloat32(at, x, true);
        else if (scalar === 'u32') this.view.setUint32(at, x, true);
        else this.view.setInt32(at, x, true);
      }
    }
    for (const member of Object.keys(values)) {
      if (!this.members.has(member)) throw new Error(`${this.name} has no member '${member}'`);
    }
    return this.bytes;
  }
}

/** The scalar type and component count of f32/u32/i32, vecN<T> and matNxN<f32> (N = 2 or 4). */
function scalarOf(type: TypeInfo): { scalar: Scalar; count: number } {
  const format = (type as { format?: TypeInfo | null }).format;
  const scalar = (format?.name ?? type.name) as Scalar;
  if (scalar !== 'f32' && scalar !== 'u32' && scalar !== 'i32')
    throw new Error(`cannot write a member of type ${type.name}`);
  const vector = /^vec([234])$/.exec(type.name);
  // mat2x2 and mat4x4 have no padding between columns (mat3x3 has; it is not supported here).
  const matrix = /^mat([24])x\1$/.exec(type.name);
  const count = vector ? Number(vector[1]) : matrix ? Number(matrix[1]) ** 2 : 1;
  if (!vector && !matrix && type.name !== scalar)
    throw new Error(`cannot write a member of type ${type.name}`);
  return { scalar, count };
}
