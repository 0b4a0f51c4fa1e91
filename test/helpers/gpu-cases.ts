/**
 * GPU-vs-CPU comparison cases of the browser harness (test/browser/gpu-harness.ts, served by Vite),
 * and the error-scope helpers the Node GPU suites share (Dawn through the `webgpu` package). No
 * vitest and no Node APIs here: this file runs in both places.
 */
import {
  buildCloth,
  createModel,
  createSimulation,
  type ExplicitIntegratorName,
  type Model,
} from '../../src/index.ts';
import { type GPU_MULTISTEP } from '../../src/internal.ts';

/** The scenes a case can run. */
export const SCENES = ['spring', 'cloth16'] as const;
export type SceneName = (typeof SCENES)[number];

/** One GPU-vs-CPU comparison; plain data, so it can cross into a browser page. */
/** The multistep integrators with a GPU port. */
export type GpuMultistepName = (typeof GPU_MULTISTEP)[number];

export interface GpuCase {
  scene: SceneName;
  /** An explicit integrator, or a multistep one the GPU runs (same kernels plus stage combinations). */
  integrator: ExplicitIntegratorName | GpuMultistepName;
  /** h, s. */
  dt: number;
  steps: number;
  /** r_m, 1/s. */
  rayleighMass: number;
  /** Fixed-point predictor–correctors only: most corrector sweeps a step (default 50). */
  maxCorrectorIterations?: number;
}

/** The integration options of a case, the same on every backend. */
export function integrationOf(
  c: GpuCase,
): Pick<GpuCase, 'integrator' | 'dt' | 'rayleighMass' | 'maxCorrectorIterations'> {
  return {
    integrator: c.integrator,
    dt: c.dt,
    rayleighMass: c.rayleighMass,
    ...(c.maxCorrectorIterations === undefined ? {} : { maxCorrectorIterations: c.maxCorrectorIterations }),
  };
}

/** Both final states of a case, float32 values widened to float64, xyz interleaved ([3n]). */
export interface GpuVsCpuStates {
  gpuPositions: number[];
  gpuVelocities: number[];
  cpuPositions: number[];
  cpuVelocities: number[];
}

/** What a case returns: the states, the adapter that ran it and every GPU error it raised. */
export interface GpuCaseResult extends GpuVsCpuStates {
  adapter: string;
  /** Messages of validation, internal, out-of-memory and uncaptured errors; empty when clean. */
  errors: string[];
}

/** Two GPU runs of the same case, for bit-for-bit comparison. */
export interface DeterminismResult {
  adapter: string;
  first: number[];
  second: number[];
  errors: string[];
}

/**
 * A single spring, k = 50 N/m, c = 0.3 N·s/m, rest length 1 m: particle 0 fixed at the origin,
 * particle 1 (0.5 kg) at (0, −1.2, 0), stretched 0.2 m, with an initial x-velocity of 0.4 m/s so
 * that the motion is not confined to one axis (a stretched, swinging pendulum).
 */
export function buildSpring(): Model {
  return createModel({
    positions: [0, 0, 0, 0, -1.2, 0],
    velocities: [0, 0, 0, 0.4, 0, 0],
    masses: [0.5, 0.5],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: 50,
    springRestLengths: [1],
    springDamping: 0.3,
  });
}

export function buildScene(scene: SceneName): Model {
  switch (scene) {
    case 'spring':
      return buildSpring();
    case 'cloth16':
      // 16 × 16 particles, 0.1 m apart, 0.1 kg each, k = 1000 N/m on every spring, top corners pinned.
      return buildCloth({ nx: 16, ny: 16, damping: 0.5 });
  }
}

/**
 * Runs `run` inside validation, internal and out-of-memory error scopes and returns every error
 * they caught. The scopes are popped even when `run` throws; the thrown error then carries them.
 */
export async function withErrorScopes<T>(
  device: GPUDevice,
  run: () => Promise<T>,
): Promise<{ value: T; errors: string[] }> {
  const filters: GPUErrorFilter[] = ['validation', 'internal', 'out-of-memory'];
  for (const filter of filters) device.pushErrorScope(filter);
  let value: T | undefined;
  let failure: unknown;
  let failed = false;
  try {
    value = await run();
  } catch (error) {
    failure = error;
    failed = true;
  }
  const errors: string[] = [];
  // Scopes pop last-in first-out.
  for (const filter of [...filters].reverse()) {
    const error = await device.popErrorScope();
    if (error) errors.push(`${filter}: ${error.message}`);
  }
  if (failed) {
    const message = failure instanceof Error ? failure.message : String(failure);
    throw new Error(errors.length ? `${message}\nGPU errors:\n${errors.join('\n')}` : message, {
      cause: failure,
    });
  }
  return { value: value as T, errors };
}

/**
 * Collects the messages of errors no scope caught; the returned array fills as they arrive, until
 * `stop` aborts (a device that outlives the caller: the listener goes with it).
 */
export function watchUncapturedErrors(device: GPUDevice, stop?: AbortSignal): string[] {
  const messages: string[] = [];
  const listen = (event: Event): void => {
    messages.push(`uncaptured: ${(event as GPUUncapturedErrorEvent).error.message}`);
  };
  device.addEventListener('uncapturederror', listen);
  stop?.addEventListener('abort', () => device.removeEventListener('uncapturederror', listen));
  return messages;
}

/**
 * Self-check of the error capture, so that "no GPU errors" is an assertion that can fail: makes
 * an invalid buffer (usage 0) inside {@link withErrorScopes} and another outside any scope, and
 * returns what the scopes and the uncaptured-error listener saw of them.
 */
export async function provokeValidationErrors(
  device: GPUDevice,
): Promise<{ scoped: string[]; uncaptured: string[] }> {
  const listening = new AbortController();
  const uncaptured = watchUncapturedErrors(device, listening.signal);
  const invalid = (label: string): void => void device.createBuffer({ label, size: 16, usage: 0 });
  const { errors: scoped } = await withErrorScopes(device, () =>
    Promise.resolve(invalid('weft-test.scoped')),
  );
  invalid('weft-test.uncaptured');
  await device.queue.onSubmittedWorkDone();
  // The uncapturederror event is dispatched as a task: give it one turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  listening.abort();
  return { scoped, uncaptured };
}

/**
 * Steps the same model on `device` (borrowed: the simulation does not destroy it) and on the CPU
 * with float32 storage, and reads both final states back. The caller wraps this in error scopes.
 */
export async function compareGpuWithCpu(device: GPUDevice, c: GpuCase): Promise<GpuVsCpuStates> {
  const model = buildScene(c.scene);
  const integration = integrationOf(c);
  const gpu = await createSimulation(model, { backend: 'webgpu', device, ...integration });
  try {
    const cpu = await createSimulation(model, { backend: 'cpu', precision: 'f32', ...integration });
    gpu.step(c.steps);
    cpu.step(c.steps);
    const [gpuState, cpuState] = await Promise.all([gpu.readState(), cpu.readState()]);
    cpu.destroy();
    return {
      gpuPositions: Array.from(gpuState.positions),
      gpuVelocities: Array.from(gpuState.velocities),
      cpuPositions: Array.from(cpuState.positions),
      cpuVelocities: Array.from(cpuState.velocities),
    };
  } finally {
    gpu.destroy();
  }
}

/** Final GPU positions of a case (velocities are checked by the comparison cases). */
export async function gpuPositions(device: GPUDevice, c: GpuCase): Promise<number[]> {
  const gpu = await createSimulation(buildScene(c.scene), { backend: 'webgpu', device, ...integrationOf(c) });
  try {
    gpu.step(c.steps);
    return Array.from((await gpu.readState()).positions);
  } finally {
    gpu.destroy();
  }
}
