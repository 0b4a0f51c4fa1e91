/**
 * Weft's internals, for its own tests and benchmarks (kernel-level checks, CPU passes, the GPU
 * classes behind createSimulation). Not a stable API: applications use src/index.ts.
 */
export * from './index.ts';
export { FIXED_STEP_INTEGRATOR_NAMES, INTEGRATOR_NAMES } from './integrators/catalog.ts';
export { AdaptiveSimulation } from './simulation/adaptive-simulation.ts';
export { compileFused, FusedUnsupported, polynomialOf } from './backends/webgpu/fused-program.ts';
export { FusedAdaptiveStepper, type FusedForm } from './backends/webgpu/fused-stepper.ts';
export { arenaStride } from './backends/webgpu/gpu-common.ts';
export { CpuMultistepSimulation } from './backends/cpu/cpu-simulation.ts';
export {
  ADAPTIVE_INTEGRATORS,
  ADAPTIVE_INTEGRATOR_NAMES,
  MULTISTEP_INTEGRATORS,
  MULTISTEP_INTEGRATOR_NAMES,
  STEP_DOUBLING_ORDER,
  type MultistepOptions,
  type ResolvedAdaptiveOptions,
} from './integrators/adaptive-options.ts';
export {
  errorNorm,
  differenceNorm,
  type ErrorTolerances,
  type StatePair,
} from './backends/cpu/error-norm.ts';
export { derivative } from './backends/cpu/passes.ts';
export { stepFactor, startingStep } from './simulation/controller.ts';
export { drakeAdjustedStep, drakeStep, workingMinimumStep } from './simulation/drake-controller.ts';
export type { AdaptiveStepper, AttemptOutcome } from './backends/common/stepper.ts';
export {
  VelocityImplicitEulerStepper,
  type VelocityImplicitEulerOptions,
} from './backends/cpu/velocity-implicit-euler.ts';
export {
  EXPLICIT_INTEGRATORS,
  EXPLICIT_INTEGRATOR_NAMES,
  type IntegrationOptions,
} from './integrators/schemes.ts';
export {
  IMPLICIT_INTEGRATORS,
  IMPLICIT_INTEGRATOR_NAMES,
  type ResolvedImplicitOptions,
} from './integrators/implicit-options.ts';
export type { Op, Program } from './integrators/program.ts';
export { renameOps, scaleStep, withMomentumImpulse } from './integrators/program-transforms.ts';
export { encodeDispatches, type Compiled } from './backends/webgpu/dispatch.ts';
export { runWithCheckpoints, type CheckpointHistory } from './backends/webgpu/checkpoints.ts';
export { CpuImplicitSimulation, type CpuImplicitOptions } from './backends/cpu/cpu-simulation.ts';
export { CpuSimulation, type CpuSimulationOptions } from './backends/cpu/cpu-simulation.ts';
export { WebGpuSimulation, type WebGpuSimulationOptions } from './backends/webgpu/webgpu-simulation.ts';
export {
  WebGpuImplicitSimulation,
  type WebGpuImplicitOptions,
  type ImplicitKernelAccess,
  type SingleKernel,
  type VectorName,
} from './backends/webgpu/webgpu-implicit-simulation.ts';
export {
  springStates,
  assembleRhs,
  systemProduct,
  diagonalInverse,
  type SpringStates,
  type RhsCoefficients,
  type SystemCoefficients,
} from './backends/cpu/implicit-passes.ts';
export { solveLinear, solverStorage, type LinearSolveResult } from './backends/cpu/linear-solver.ts';
export { CpuSelfContact } from './backends/cpu/self-contact.ts';
export { CpuBending } from './backends/cpu/bending.ts';
export { bindByName, readBuffer } from './backends/webgpu/gpu-common.ts';
export { measureCopy, measureProduct, productBytes, type Throughput } from './backends/webgpu/bandwidth.ts';
export {
  optionsMarkdown,
  resolveAdaptiveOptions,
  resolveImplicitOptions,
  validateOptions,
} from './integrators/options.ts';
export { OPTIONS } from './integrators/options-table.ts';
export { featureSupportMarkdown, requireFeatureSupport } from './integrators/feature-support.ts';
export { AdaptiveEdits } from './simulation/adaptive-edits.ts';
export { RUNGE_KUTTA_TABLEAUX } from './integrators/tableaux.ts';
export { rhsCoefficients, systemCoefficients, NO_RHS_TERMS } from './integrators/implicit-schemes.ts';
export { describeAdapterInfo } from './backends/webgpu/device.ts';
export { checkDeviceFits } from './backends/webgpu/device-fits.ts';
export { GPU_MULTISTEP } from './backends/webgpu/webgpu-simulation.ts';
export { FLOAT32_TOLERANCE_FLOOR } from './backends/webgpu/webgpu-implicit-simulation.ts';
export { applyPreconditioner, dot } from './backends/cpu/implicit-passes.ts';
export type { SolverWorkspace } from './backends/cpu/linear-solver.ts';
export type { RealArray } from './backends/common/stepper.ts';
export { kernels, type KernelName } from './backends/webgpu/kernels.ts';
export { structBytes } from './backends/webgpu/layout.ts';
export { scalarConstant } from './backends/webgpu/solver-control.ts';
export { CpuProgramStepper } from './backends/cpu/program-stepper.ts';
export { WebGpuProgramStepper } from './backends/webgpu/program-stepper.ts';
export {
  adaptiveProgram,
  velocityImplicitProgram,
  stepDoublingProgram,
} from './integrators/adaptive-programs.ts';
export { implicitProgram } from './integrators/implicit-programs.ts';
export {
  buildMultigridHierarchy,
  MULTIGRID_CYCLE,
  type MultigridHierarchy,
} from './model/multigrid-hierarchy.ts';
export { PairNumbering } from './model/pair-numbering.ts';
export { addNegativePart, CpuMultigrid } from './backends/cpu/multigrid.ts';
export { colliderDistance, resolveCollider, nearestContact, FILTER_ROUNDING } from './model/colliders.ts';
export { buildMeshBvh, closestOnTriangle, meshDistance, MESH_STACK } from './model/mesh-collider.ts';
export {
  triangleAeroForce,
  windAt,
  resolveWind,
  TURBULENCE_DIRECTIONS,
  TURBULENCE_PHASES,
} from './model/wind.ts';
export { hingeAngle, angleDifference, bendingEnergy } from './model/bending.ts';
export { didYouMean, shortestFloat32 } from './cli/text.ts';
export { meshTopology, DEGENERATE_AREA_RATIO, type MeshTopology } from './model/mesh-topology.ts';
export { selfIntersections, trianglesIntersect } from './model/self-intersection.ts';
export * from './internal-self-cpu.ts';
export * from './internal-self-gpu.ts';
export * from './internal-self-dynamics.ts';
