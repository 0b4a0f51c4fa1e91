/**
 * Kernel-level access to a WebGpuImplicitSimulation's buffers: write and read its vectors, run one
 * kernel (or one whole linear solve), read spring states, the inverse diagonal and the solver's
 * scalars — for testing each kernel against the CPU reference, and for benchmarks.
 */
import { kernels } from './kernels.ts';
import { vec4Bytes } from './gpu-common.ts';
import type { Model } from '../../model/model.ts';

/** Vectors of the implicit path that {@link ImplicitKernelAccess} can write and read. */
export type VectorName =
  | 'positions'
  | 'velocities'
  | 'accelerations'
  | 'momenta'
  | 'rhs'
  | 'solution'
  | 'direction'
  | 'product'
  | 'residual';
/** What {@link ImplicitKernelAccess.run} runs: one kernel, or a whole linear solve of A x = b (b in rhs). */
export type SingleKernel =
  'springJacobians' | 'implicitRhs' | 'systemDiagonal' | 'systemProduct' | 'cgStart' | 'solve';

/** Kernel-level access to a {@link WebGpuImplicitSimulation}'s buffers, for tests and benchmarks. */
export interface ImplicitKernelAccess {
  /** Uploads xyz vectors (float64, converted to f32) into a named buffer. */
  write(name: VectorName, xyz: Float64Array): void;
  read(name: VectorName): Promise<Float64Array>;
  /**
   * Runs a kernel `repeats` times in one submission and resolves when the GPU is done.
   * springJacobians evaluates at (positions, velocities); implicitRhs uses velocities,
   * accelerations, momenta; systemDiagonal and systemProduct (q = A p, p = direction, q =
   * product) use the last spring states; solve solves A x = b with b = rhs, x = solution.
   */
  run(kernel: SingleKernel, repeats?: number): Promise<void>;
  /** Spring states as the CPU's SpringStates (force 3s, direction 3s, jacobian 6s). */
  readSpringStates(): Promise<{ force: Float64Array; direction: Float64Array; jacobian: Float64Array }>;
  /** Inverse diagonal blocks, 6 per particle (xx, yy, zz, xy, xz, yz). */
  readInverseDiagonal(): Promise<Float64Array>;
  /** The scalar fields of SolverControl. */
  readControl(): Promise<Record<string, number>>;
}

function vec4ToXyz(data: Float32Array, n: number): Float64Array {
  const out = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[3 * i + c] = data[4 * i + c]!;
  return out;
}

/** What {@link kernelAccess} needs of a simulation. */
export interface KernelAccessTarget {
  readonly device: GPUDevice;
  readonly model: Model;
  readonly vectors: Readonly<Record<VectorName, GPUBuffer>>;
  readonly springStates: GPUBuffer;
  readonly inverseDiagonal: GPUBuffer;
  readonly control: GPUBuffer;
  readBuffer(buffer: GPUBuffer): Promise<Float32Array>;
  /** Encodes `repeats` runs of a kernel in one submission and resolves when the GPU is done. */
  run(kernel: SingleKernel, repeats: number): Promise<void>;
}

export function kernelAccess(t: KernelAccessTarget): ImplicitKernelAccess {
  return {
    write: (name, xyz) =>
      t.device.queue.writeBuffer(t.vectors[name], 0, vec4Bytes(xyz, name === 'positions' ? 1 : 0)),
    read: async (name) => vec4ToXyz(await t.readBuffer(t.vectors[name]), t.model.particleCount),
    run: (kernel, repeats = 1) => t.run(kernel, repeats),
    readSpringStates: async () => {
      const data = await t.readBuffer(t.springStates);
      const s = t.model.springCount;
      const force = new Float64Array(3 * s);
      const direction = new Float64Array(3 * s);
      const jacobian = new Float64Array(6 * s);
      for (let k = 0; k < s; k++) {
        const b = 16 * k;
        force.set([data[b]!, data[b + 1]!, data[b + 2]!], 3 * k);
        direction.set([data[b + 4]!, data[b + 5]!, data[b + 6]!], 3 * k);
        jacobian.set(
          [data[b + 8]!, data[b + 9]!, data[b + 10]!, data[b + 12]!, data[b + 13]!, data[b + 14]!],
          6 * k,
        );
      }
      return { force, direction, jacobian };
    },
    readInverseDiagonal: async () => {
      const data = await t.readBuffer(t.inverseDiagonal);
      const out = new Float64Array(6 * t.model.particleCount);
      for (let i = 0; i < t.model.particleCount; i++) {
        out.set(
          [
            data[8 * i]!,
            data[8 * i + 1]!,
            data[8 * i + 2]!,
            data[8 * i + 4]!,
            data[8 * i + 5]!,
            data[8 * i + 6]!,
          ],
          6 * i,
        );
      }
      return out;
    },
    readControl: async () => {
      const layout = kernels().solverScalars.structs.get('SolverControl')!;
      const bytes = await t.readBuffer(t.control);
      const view = new DataView(bytes.buffer);
      const out: Record<string, number> = {};
      for (const [name, member] of layout.members) {
        if (member.type.startsWith('vec')) continue;
        out[name] =
          member.type === 'f32' ? view.getFloat32(member.offset, true) : view.getUint32(member.offset, true);
      }
      return out;
    },
  };
}
