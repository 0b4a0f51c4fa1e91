/**
 * Weft's public API: build a model, create a simulation on the CPU or on WebGPU, step it, read
 * its state and statistics. Everything else is internal (src/internal.ts, for Weft's own tests).
 */
export {
  WeftError,
  WeftInputError,
  WeftDivergenceError,
  WeftStepSizeError,
  WebGpuUnavailableError,
  WeftDestroyedError,
  WeftDeviceLostError,
  type WeftErrorCode,
} from './core/errors.ts';
export {
  createModel,
  withColliders,
  withStrainLimit,
  withWind,
  withBending,
  withSelfCollision,
  type Model,
  type ModelDescription,
} from './model/model.ts';
export type { StrainLimit, ResolvedStrainLimit } from './model/strain-limit.ts';
export type { Wind, ResolvedWind } from './model/wind.ts';
export { meshHinges, type Bending, type ResolvedBending } from './model/bending.ts';
export type { SelfCollision, ResolvedSelfCollision, SelfContactStats } from './model/self-collision.ts';
export type {
  Collider,
  PlaneCollider,
  SphereCollider,
  CapsuleCollider,
  BoxCollider,
  MeshCollider,
  ColliderSurface,
  ResolvedCollider,
} from './model/colliders.ts';
export type { MeshBvh } from './model/mesh-collider.ts';
export type { ColliderPose } from './model/collider-pose.ts';
export type { Incidence } from './model/incidence.ts';
export {
  buildCloth,
  buildRope,
  type ClothOptions,
  type ClothPinPreset,
  type RopeOptions,
} from './model/builders.ts';
export { parseScene, type SceneFile } from './model/scene.ts';
// Meshes: any triangle mesh as a model; OBJ in and out.
export { meshToModel, MESH_MATERIAL_DEFAULTS, type MeshMaterial } from './model/mesh.ts';
export { meshPins, MESH_PIN_PRESETS, type MeshPinPreset } from './model/mesh-pins.ts';
export { loadObj, writeObj, type ObjFaces, type ObjMesh, type WriteObjOptions } from './model/obj.ts';
export { energy, hamiltonian, type Energy } from './model/energy.ts';
export {
  INTEGRATORS,
  INTEGRATOR_NAMES,
  type IntegratorFamily,
  type IntegratorName,
  type FixedStepIntegratorName,
} from './integrators/catalog.ts';
export type { ExplicitIntegratorName } from './integrators/schemes.ts';
export type {
  ImplicitIntegratorName,
  ImplicitOptions,
  LinearSolverName,
  SolverStats,
} from './integrators/implicit-options.ts';
export type {
  AdaptiveIntegratorName,
  AdaptiveOptions,
  AdaptiveStats,
  MultistepIntegratorName,
  MultistepStats,
  NewtonStats,
} from './integrators/adaptive-options.ts';
export type {
  Simulation,
  SimulationState,
  GpuSimulation,
  KernelTime,
  ProgressCallback,
} from './backends/common/simulation-types.ts';
export type { ParticleUpdate } from './backends/common/attachments.ts';
export { findAdapter, acquireDevice, type AdapterReport } from './backends/webgpu/device.ts';
export {
  createSimulation,
  type FixedStepSimulationOptions,
  type SimulationOptions,
} from './simulation/create-simulation.ts';
export {
  createAdaptiveSimulation,
  type AdaptiveBackendOptions,
} from './simulation/create-adaptive-simulation.ts';
export { type AdaptiveSimulation, type TimeProgressCallback } from './simulation/adaptive-simulation.ts';
