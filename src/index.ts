export {
  WeftError,
  WeftInputError,
  WeftDivergenceError,
  WeftStepSizeError,
  WebGpuUnavailableError,
  type WeftErrorCode,
} from './errors.ts';
export { createModel, type Model, type ModelDescription } from './model/model.ts';
export type { Incidence } from './model/incidence.ts';
export {
  buildCloth,
  buildRope,
  type ClothOptions,
  type ClothPinPreset,
  type RopeOptions,
} from './model/builders.ts';
export { parseScene, type SceneFile } from './model/scene.ts';
export { energy, hamiltonian, type Energy } from './model/energy.ts';
export {
  INTEGRATORS,
  INTEGRATOR_NAMES,
  FIXED_STEP_INTEGRATOR_NAMES,
  type IntegratorName,
  type FixedStepIntegratorName,
} from './integrators/catalog.ts';
export * from './adaptive/index.ts';
export { createAdaptiveSimulation, type AdaptiveBackendOptions } from './adaptive/adaptive-simulation.ts';
export {
  EXPLICIT_INTEGRATORS,
  EXPLICIT_INTEGRATOR_NAMES,
  type ExplicitIntegratorName,
  type IntegrationOptions,
} from './integrators/schemes.ts';
export {
  IMPLICIT_INTEGRATORS,
  IMPLICIT_INTEGRATOR_NAMES,
  type ImplicitIntegratorName,
  type ImplicitOptions,
  type LinearSolverName,
  type SolverStats,
} from './integrators/implicit-options.ts';
export { CpuImplicitSimulation, type CpuImplicitOptions } from './cpu/cpu-implicit-simulation.ts';
export type { Simulation, SimulationState, GpuSimulation } from './simulation-types.ts';
export { createSimulation, type SimulationOptions } from './simulation.ts';
export { CpuSimulation, type CpuSimulationOptions } from './cpu/cpu-simulation.ts';
export { WebGpuSimulation, type WebGpuSimulationOptions } from './webgpu/webgpu-simulation.ts';
export { findAdapter, acquireDevice, type AdapterReport } from './webgpu/device.ts';
export {
  WebGpuImplicitSimulation,
  type WebGpuImplicitOptions,
  type ImplicitKernelAccess,
  type SingleKernel,
  type VectorName,
} from './webgpu/webgpu-implicit-simulation.ts';
export {
  springStates,
  assembleRhs,
  systemProduct,
  diagonalInverse,
  type SpringStates,
  type RhsCoefficients,
  type SystemCoefficients,
} from './cpu/implicit-passes.ts';
export { solveLinear, type LinearSolveResult } from './cpu/linear-solver.ts';
export { measureCopy, measureProduct, productBytes, type Throughput } from './webgpu/bandwidth.ts';
