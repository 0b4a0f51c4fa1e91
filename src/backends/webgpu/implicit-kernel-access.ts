/**
 * Kernel-level access to an implicit program's executor: write and read its vectors, run one
 * kernel (or one whole linear solve), read spring states, the inverse diagonal and the solver's
 * scalars — for testing each kernel against the CPU reference, and for benchmarks.
 */
import { flatOps, type Program } from '../../integrators/program.ts';
import { encodeDispatches, type Compiled } from './dispatch.ts';
import type { WebGpuExecutor } from './executor.ts';
import { readBuffer } from './gpu-common.ts';
import { SOLVER_VECTORS } from './implicit-ops.ts';
import { kernels } from './kernels.ts';

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
   * product; the blocks of A formed once, then the product `repeats` times) use the last spring
   * states; solve solves A x = b with b = rhs, x = solution.
   */
  run(kernel: SingleKernel, repeats?: number): Promise<void>;
  /** Spring states as the CPU's SpringStates (force 3s, direction 3s, jacobian 6s). */
  readSpringStates(): Promise<{ force: Float64Array; direction: Float64Array; jacobian: Float64Array }>;
  /** Inverse diagonal blocks, 6 per particle (xx, yy, zz, xy, xz, yz). */
  readInverseDiagonal(): Promise<Float64Array>;
  /** The scalar fields of SolverControl. */
  readControl(): Promise<Record<string, number>>;
}

/** The program vector behind each name of {@link VectorName}. */
const PROGRAM_VECTOR: Record<VectorName, string> = {
  positions: 'x',
  velocities: 'v',
  accelerations: 'a',
  momenta: 'p',
  rhs: 'b',
  solution: 's',
  direction: SOLVER_VECTORS.p,
  product: SOLVER_VECTORS.w,
  residual: SOLVER_VECTORS.r,
};

/** The dispatches of one {@link SingleKernel} on an implicit program's executor. */
function singleKernel(executor: WebGpuExecutor, program: Program, kernel: SingleKernel): Compiled[] {
  const ops = executor.implicit!;
  const ref = (name: VectorName): number => executor.reference(PROGRAM_VECTOR[name]);
  const [b, s] = [ref('rhs'), ref('solution')];
  const rhs = flatOps(program.step).find((op) => op.op === 'rhs' && op.to === 'b');
  const solve = flatOps(program.step).find((op) => op.op === 'solve')!;
  const system = { solver: ops.solverParams(solve.system) };
  const out: Compiled[] = [];
  switch (kernel) {
    case 'springJacobians':
      return [ops.kernel('springJacobians', 'springs', { xRef: 0, vRef: 1 })];
    case 'implicitRhs':
      executor.compile([rhs!], new Map(), out);
      return out;
    case 'systemDiagonal':
      return [ops.kernel('systemDiagonal', 'particles', {}, system)];
    case 'systemProduct':
      return [ops.kernel('systemBlocks', 'springs', {}, system), ops.kernel('systemProduct', 'particles', { inputRef: ref('direction'), productRef: ref('product') }, system)];
    case 'cgStart':
      return [ops.kernel('cgInit', 'particles', { rhsRef: b, solutionRef: s, residualRef: ref('residual'), directionRef: ref('direction') }), ops.scalars('CG_START')];
    case 'solve':
      return ops.solve(b, s, solve.system);
  }
} // prettier-ignore

/** Kernel-level access to an implicit program's executor (its buffers read with fresh staging buffers). */
export function kernelAccess(executor: WebGpuExecutor, program: Program): ImplicitKernelAccess {
  const { device, model } = executor;
  const ops = executor.implicit!;
  const single = new Map<SingleKernel, Compiled[]>();
  const read = async (buffer: GPUBuffer): Promise<Float32Array> =>
    new Float32Array((await readBuffer(device, buffer)).buffer);
  return {
    write: (name, xyz) => executor.writeVector(PROGRAM_VECTOR[name], xyz),
    read: (name) => executor.readVector(PROGRAM_VECTOR[name]),
    run: (kernel, repeats = 1) => {
      let list = single.get(kernel);
      if (!list) single.set(kernel, (list = singleKernel(executor, program, kernel)));
      const encoder = device.createCommandEncoder({ label: `ImplicitKernelAccess.${kernel}` });
      const pass = encoder.beginComputePass();
      // systemProduct: the solve's blocks once (system-blocks.wgsl), then the product `repeats` times.
      const once = kernel === 'systemProduct' ? 1 : 0;
      encodeDispatches(pass, list.slice(0, once), executor.workgroupSize, device.limits);
      const repeated = list.slice(once);
      for (let r = 0; r < repeats; r++)
        encodeDispatches(pass, repeated, executor.workgroupSize, device.limits);
      pass.end();
      device.queue.submit([encoder.finish()]);
      return device.queue.onSubmittedWorkDone();
    },
    readSpringStates: async () => {
      const data = await read(ops.springStates);
      const s = model.springCount;
      const force = new Float64Array(3 * s);
      const direction = new Float64Array(3 * s);
      const jacobian = new Float64Array(6 * s);
      // SpringState (implicit-common.wgsl): (n, f), (k g, k (1 − g), c, 0); J = k g I + k (1 − g) n nᵀ.
      for (let k = 0; k < s; k++) {
        const [x, y, z, f, kg, kn] = Array.from(data.subarray(8 * k, 8 * k + 6));
        [x, y, z].forEach((c, axis) => (force[3 * k + axis] = f! * c!));
        direction.set([x!, y!, z!], 3 * k);
        const along = [x! * x!, y! * y!, z! * z!, x! * y!, x! * z!, y! * z!].map((p) => kn! * p);
        jacobian.set(
          along.map((a, e) => (e < 3 ? kg! + a : a)),
          6 * k,
        );
      }
      return { force, direction, jacobian };
    },
    readInverseDiagonal: async () => {
      const data = await read(ops.inverseDiagonal);
      const out = new Float64Array(6 * model.particleCount);
      for (let i = 0; i < model.particleCount; i++) {
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
      const view = new DataView((await readBuffer(device, ops.control)).buffer);
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
