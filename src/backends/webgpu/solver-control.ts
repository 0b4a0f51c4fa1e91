/** The solver statistics in a read-back copy of the SolverControl storage word block (shaders/solver-scalars.wgsl). */
import type { SolverStats } from '../../integrators/implicit-options.ts';
import { kernels } from './kernels.ts';
import { mappedCopy } from './gpu-common.ts';

/** A value of solver-scalars.wgsl's `const NAME: u32 = …u;` (e.g. CG_START), read from its source. */
export function scalarConstant(name: string): number {
  const value = kernels().solverScalars.constants.get(name);
  if (value === undefined) throw new Error(`shaders/solver-scalars.wgsl declares no const ${name}`);
  return value;
}

/** What GpuImplicitOps reports: a SolverStats without the step count, and the estimator's iterations. */
export type GpuSolverTotals = Omit<SolverStats, 'steps'> & { estimatorIterations: number };

/** Decodes `bytes` (a copy of SolverControl, its reflected layout); `newton`: the program has a Newton loop. */
export function decodeSolverControl(bytes: ArrayBuffer, newton: boolean): GpuSolverTotals {
  const view = new DataView(bytes);
  const layout = kernels().solverScalars.structs.get('SolverControl')!;
  const u32 = (name: string): number => view.getUint32(layout.members.get(name)!.offset, true);
  const f32 = (name: string): number => view.getFloat32(layout.members.get(name)!.offset, true);
  return {
    linearSolves: u32('linearSolves'),
    linearIterations: u32('linearIterations'),
    maxLinearIterations: u32('maxLinearIterations'),
    lastResidual: f32('lastResidual'),
    maxResidual: f32('maxResidual'),
    unconvergedSolves: u32('unconvergedSolves'),
    newtonIterations: u32('newtonIterations'),
    estimatorIterations: u32('estimatorIterations'),
    unconvergedSteps: u32('unconvergedSteps'),
    converged: newton ? u32('lastConverged') === 1 : true,
  };
}

/**
 * The statistics in `readback`, a MAP_READ copy of the control buffer (mapped now: after the
 * submission that copied them; one call at a time).
 */
export async function mapSolverControl(readback: GPUBuffer, newton: boolean): Promise<GpuSolverTotals> {
  return decodeSolverControl(await mappedCopy(readback), newton);
}
