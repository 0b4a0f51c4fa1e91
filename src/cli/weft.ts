/**
 * The `weft` command line: `weft run`, `weft info`, `weft demo`. User errors print one line and
 * exit non-zero (2: bad input, 3: no WebGPU, 4: diverged or no step size meets the accuracy);
 * never a stack trace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitCode, WebGpuUnavailableError, WeftError, WeftInputError } from '../core/errors.ts';
import { INTEGRATOR_NAMES, INTEGRATORS, isAdaptive, type IntegratorName } from '../integrators/catalog.ts';
import { isImplicit } from '../integrators/implicit-options.ts';
import { createAdaptiveSimulation, type AdaptiveBackendOptions } from '../simulation/adaptive-simulation.ts';
import type { AdaptiveIntegratorName, AdaptiveOptions } from '../integrators/adaptive-options.ts';
import type { ExplicitIntegratorName } from '../integrators/schemes.ts';
import { buildCloth } from '../model/builders.ts';
import { energy, hamiltonian } from '../model/energy.ts';
import type { ImplicitOptions, LinearSolverName } from '../integrators/implicit-options.ts';
import type { Model } from '../model/model.ts';
import { parseScene } from '../model/scene.ts';
import { createSimulation, type SimulationOptions } from '../simulation/create-simulation.ts';
import type { Simulation, SimulationState } from '../backends/common/simulation-types.ts';
import { findAdapter } from '../backends/webgpu/device.ts';
import { ProgressBar } from './progress.ts';

const USAGE = `Usage:
  weft run <scene.json> --integrator <name> --dt <h> --steps <n> [--backend cpu|webgpu]
           [--precision f64|f32] [--rayleigh-mass r] [--rayleigh-stiffness r] [--every k]
           [--out file] [--progress]
           implicit integrators: [--solver cg|pcg|jacobi] [--preconditioner block|scalar]
           [--tolerance t] [--max-iterations n] [--newton-iterations n] [--newton-error e]
           [--jacobian clamped|exact] [--newmark-gamma g] [--newmark-beta b]
           [--check-every k] (webgpu: read convergence back every k iterations; 0 = never)
  weft run <scene.json> --integrator rk45|step-doubling|velocity-implicit-euler --t-end <s>
           [--accuracy r] [--absolute-tolerance a] [--min-step h] [--max-step h] [--dt h0]
           [--scheme heun] [--frames m] [--backend cpu|webgpu] [--precision f64|f32]
           [--rayleigh-mass r] [--out file] [--progress]
  weft demo [--backend webgpu|cpu] [--size n] [--steps n] [--integrator name] [--dt h]
  weft info
Integrators: ${INTEGRATOR_NAMES.join(', ')}`;

function number(option: string, text: string | undefined, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new WeftInputError(option, 'is required');
    return fallback;
  }
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new WeftInputError(option, `must be a finite number, got '${text}'`);
  return value;
}

function integer(option: string, text: string | undefined, minimum: number, fallback?: number): number {
  const value = number(option, text, fallback);
  if (!Number.isInteger(value) || value < minimum) {
    throw new WeftInputError(option, `must be an integer ≥ ${minimum}, got '${text}'`);
  }
  return value;
}

function integratorName(text: string | undefined, fallback?: IntegratorName): IntegratorName {
  const name = text ?? fallback;
  if (name === undefined)
    throw new WeftInputError('--integrator', `is required (one of: ${INTEGRATOR_NAMES.join(', ')})`);
  if (!(name in INTEGRATORS)) {
    throw new WeftInputError(
      '--integrator',
      `unknown integrator '${name}' (known: ${INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  return name as IntegratorName;
}

function backendName(text: string | undefined, fallback: 'cpu' | 'webgpu'): 'cpu' | 'webgpu' {
  const backend = text ?? fallback;
  if (backend !== 'cpu' && backend !== 'webgpu')
    throw new WeftInputError('--backend', `must be cpu or webgpu, got '${backend}'`);
  return backend;
}

function readScene(path: string): Model {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WeftInputError(
      'scene',
      `cannot read '${path}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WeftInputError('scene', `'${path}' is not valid JSON: ${(error as Error).message}`);
  }
  return parseScene(json);
}

interface Frame {
  step: number;
  time: number;
  positions: number[];
  velocities: number[];
  /** Kinetic + spring + gravitational energy, J. */
  energy: number;
  /** variational-symplectic-implicit: ½ pᵀM⁻¹p + potential, with its momentum p, J. */
  hamiltonian?: number;
}

function frameOf(model: Model, state: SimulationState): Frame {
  return {
    step: state.step,
    time: state.time,
    positions: Array.from(state.positions),
    velocities: Array.from(state.velocities),
    energy: energy(model, state.positions, state.velocities).total,
    ...(state.momenta ? { hamiltonian: hamiltonian(model, state.positions, state.momenta) } : {}),
  };
}

/** The implicit integrators' options: flag name → option. */
const IMPLICIT_FLAGS = {
  solver: { type: 'string' },
  preconditioner: { type: 'string' },
  tolerance: { type: 'string' },
  'max-iterations': { type: 'string' },
  'newton-iterations': { type: 'string' },
  'newton-error': { type: 'string' },
  jacobian: { type: 'string' },
  'newmark-gamma': { type: 'string' },
  'newmark-beta': { type: 'string' },
  'check-every': { type: 'string' },
} as const;

function implicitOptions(
  values: Partial<Record<keyof typeof IMPLICIT_FLAGS, string | boolean | undefined>>,
): ImplicitOptions & { checkEvery?: number } {
  const text = (key: keyof typeof IMPLICIT_FLAGS): string | undefined => values[key] as string | undefined;
  const options: ImplicitOptions & { checkEvery?: number } = {};
  if (text('solver') !== undefined) options.solver = text('solver') as LinearSolverName;
  if (text('preconditioner') !== undefined) options.preconditioner = text('preconditioner') as 'block';
  if (text('jacobian') !== undefined) options.jacobian = text('jacobian') as 'clamped';
  if (text('tolerance') !== undefined) options.tolerance = number('--tolerance', text('tolerance'));
  if (text('max-iterations') !== undefined)
    options.maxIterations = integer('--max-iterations', text('max-iterations'), 1);
  if (text('newton-iterations') !== undefined)
    options.newtonIterations = integer('--newton-iterations', text('newton-iterations'), 1);
  if (text('newton-error') !== undefined)
    options.newtonError = number('--newton-error', text('newton-error'));
  if (text('newmark-gamma') !== undefined)
    options.newmarkGamma = number('--newmark-gamma', text('newmark-gamma'));
  if (text('newmark-beta') !== undefined)
    options.newmarkBeta = number('--newmark-beta', text('newmark-beta'));
  if (text('check-every') !== undefined)
    options.checkEvery = integer('--check-every', text('check-every'), 0);
  return options;
}

/** Steps to `steps`, reading a frame at 0, every `every` steps, and at the end. */
async function integrate(
  simulation: Simulation,
  steps: number,
  every: number,
  progress?: ProgressBar,
): Promise<{ frames: Frame[]; initial: SimulationState; final: SimulationState; seconds: number }> {
  const initial = await simulation.readState();
  const frames = [frameOf(simulation.model, initial)];
  const started = performance.now();
  let final = initial;
  let done = 0;
  while (done < steps) {
    const next = Math.min(steps, (Math.floor(done / every) + 1) * every);
    const base = done;
    await simulation.advance(next - done, (d) => progress?.update(base + d));
    done = next;
    final = await simulation.readState();
    frames.push(frameOf(simulation.model, final));
  }
  return { frames, initial, final, seconds: (performance.now() - started) / 1000 };
}

async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      integrator: { type: 'string' },
      dt: { type: 'string' },
      steps: { type: 'string' },
      backend: { type: 'string' },
      precision: { type: 'string' },
      'rayleigh-mass': { type: 'string' },
      'rayleigh-stiffness': { type: 'string' },
      every: { type: 'string' },
      out: { type: 'string' },
      progress: { type: 'boolean' },
      ...IMPLICIT_FLAGS,
      ...ADAPTIVE_FLAGS,
    },
  });
  if (positionals.length !== 1)
    throw new WeftInputError('scene', `give exactly one scene file, got ${positionals.length}`);
  const integrator = integratorName(values.integrator);
  // A flag the chosen integrator would ignore is an error, not silently dropped.
  const refuse = (flags: readonly string[], why: string): void => {
    for (const flag of flags) {
      if (values[flag as keyof typeof values] !== undefined) throw new WeftInputError(`--${flag}`, why);
    }
  };
  if (isAdaptive(integrator)) {
    refuse(
      ['steps', 'every', 'rayleigh-stiffness', ...Object.keys(IMPLICIT_FLAGS)],
      `does not apply to the adaptive '${integrator}'`,
    );
    return runAdaptive(positionals[0]!, integrator, values);
  }
  if (values['t-end'] !== undefined) {
    throw new WeftInputError(
      '--t-end',
      `'${integrator}' takes fixed steps: give --dt and --steps (--t-end is for rk45, step-doubling, velocity-implicit-euler)`,
    );
  }
  refuse(
    Object.keys(ADAPTIVE_FLAGS),
    `applies to the adaptive integrators only (rk45, step-doubling, velocity-implicit-euler), not '${integrator}'`,
  );
  if (!isImplicit(integrator))
    refuse(Object.keys(IMPLICIT_FLAGS), `applies to the implicit integrators only, not '${integrator}'`);
  const dt = number('--dt', values.dt);
  const steps = integer('--steps', values.steps, 0);
  const every = integer('--every', values.every, 1, Math.max(1, steps));
  const backend = backendName(values.backend, 'cpu');
  const precision = values.precision ?? (backend === 'webgpu' ? 'f32' : 'f64');
  if (precision !== 'f64' && precision !== 'f32')
    throw new WeftInputError('--precision', `must be f64 or f32, got '${precision}'`);
  const model = readScene(positionals[0]!);
  const options = {
    backend,
    integrator,
    dt,
    precision,
    rayleighMass: number('--rayleigh-mass', values['rayleigh-mass'], 0),
    rayleighStiffness: number('--rayleigh-stiffness', values['rayleigh-stiffness'], 0),
    ...implicitOptions(values),
  } as SimulationOptions;
  const simulation = await createSimulation(model, options);
  try {
    const progress = values.progress ? new ProgressBar(integrator, steps) : undefined;
    const result = await integrate(simulation, steps, every, progress);
    const output = {
      integrator,
      backend,
      dt,
      frames: result.frames,
      stats: {
        particles: model.particleCount,
        springs: model.springCount,
        steps,
        precision,
        device: simulation.description,
        order: INTEGRATORS[integrator].order,
        wallSeconds: result.seconds,
        stepsPerSecond: result.seconds > 0 ? steps / result.seconds : null,
        energyInitial: energy(model, result.initial.positions, result.initial.velocities),
        energyFinal: energy(model, result.final.positions, result.final.velocities),
        solver: await simulation.readSolverStats(),
      },
    };
    const text = JSON.stringify(output);
    if (values.out) writeFileSync(values.out, text + '\n');
    else process.stdout.write(text + '\n');
  } finally {
    simulation.destroy();
  }
}

/** Options of the adaptive integrators: flag name → option. */
const ADAPTIVE_FLAGS = {
  't-end': { type: 'string' },
  accuracy: { type: 'string' },
  'absolute-tolerance': { type: 'string' },
  'min-step': { type: 'string' },
  'max-step': { type: 'string' },
  scheme: { type: 'string' },
  frames: { type: 'string' },
} as const;

/** `weft run` with an adaptive integrator: integrate to --t-end, frames at --frames equal intervals. */
async function runAdaptive(
  scenePath: string,
  integrator: AdaptiveIntegratorName,
  values: Record<string, string | boolean | undefined>,
): Promise<void> {
  const text = (key: string): string | undefined => values[key] as string | undefined;
  const tEnd = number('--t-end', text('t-end'));
  if (!(tEnd > 0)) throw new WeftInputError('--t-end', `must be > 0, got ${tEnd}`);
  const frames = integer('--frames', text('frames'), 1, 1);
  const backend = backendName(text('backend'), 'cpu');
  const precision = text('precision') ?? (backend === 'webgpu' ? 'f32' : 'f64');
  if (precision !== 'f64' && precision !== 'f32')
    throw new WeftInputError('--precision', `must be f64 or f32, got '${precision}'`);
  const model = readScene(scenePath);
  const options: AdaptiveOptions & AdaptiveBackendOptions = { integrator, backend, precision };
  if (text('accuracy') !== undefined) options.accuracy = number('--accuracy', text('accuracy'));
  if (text('absolute-tolerance') !== undefined)
    options.absoluteTolerance = number('--absolute-tolerance', text('absolute-tolerance'));
  if (text('min-step') !== undefined) options.minStep = number('--min-step', text('min-step'));
  if (text('max-step') !== undefined) options.maxStep = number('--max-step', text('max-step'));
  if (text('dt') !== undefined) options.initialStep = number('--dt', text('dt'));
  if (text('scheme') !== undefined) options.scheme = text('scheme') as ExplicitIntegratorName;
  if (text('rayleigh-mass') !== undefined)
    options.rayleighMass = number('--rayleigh-mass', text('rayleigh-mass'));
  const simulation = await createAdaptiveSimulation(model, options);
  try {
    const progress = values['progress'] ? new ProgressBar(integrator, 1000) : undefined;
    const initial = await simulation.readState();
    const output: Frame[] = [frameOf(model, initial)];
    const started = performance.now();
    let final = initial;
    for (let f = 1; f <= frames; f++) {
      const target = (tEnd * f) / frames;
      await simulation.advanceTo(target, (t) => progress?.update(Math.round((1000 * t) / tEnd)));
      final = await simulation.readState();
      output.push(frameOf(model, final));
    }
    const seconds = (performance.now() - started) / 1000;
    const json = {
      integrator,
      backend,
      tEnd,
      frames: output,
      stats: {
        particles: model.particleCount,
        springs: model.springCount,
        precision,
        device: simulation.description,
        order: INTEGRATORS[integrator].order,
        wallSeconds: seconds,
        energyInitial: energy(model, initial.positions, initial.velocities),
        energyFinal: energy(model, final.positions, final.velocities),
        adaptive: simulation.readStats(),
        solver: await simulation.readSolverStats(),
      },
    };
    const out = text('out');
    if (out) writeFileSync(out, JSON.stringify(json) + '\n');
    else process.stdout.write(JSON.stringify(json) + '\n');
  } finally {
    simulation.destroy();
  }
}

async function demo(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      backend: { type: 'string' },
      size: { type: 'string' },
      steps: { type: 'string' },
      integrator: { type: 'string' },
      dt: { type: 'string' },
      stiffness: { type: 'string' },
      ...IMPLICIT_FLAGS,
    },
  });
  const size = integer('--size', values.size, 2, 64);
  // Warp's cross-framework cloth protocol: spacing 0.1, mass 0.1, k = 1000, damping 10,
  // two corners fixed, 1/60 s frames in 16 substeps.
  const dt = number('--dt', values.dt, 1 / 60 / 16);
  const steps = integer('--steps', values.steps, 0, 960);
  const integrator = integratorName(values.integrator, 'symplectic-euler');
  if (isAdaptive(integrator)) {
    throw new WeftInputError(
      '--integrator',
      `the demo takes fixed steps; '${integrator}' is adaptive (use weft run --t-end)`,
    );
  }
  let backend = backendName(values.backend, 'webgpu');
  const k = number('--stiffness', values.stiffness, 1000);
  const model = buildCloth({
    nx: size,
    ny: size,
    spacing: 0.1,
    particleMass: 0.1,
    damping: 10,
    structuralStiffness: k,
    shearStiffness: k,
    bendStiffness: k,
  });
  const solverOptions = implicitOptions(values);
  let simulation: Simulation;
  try {
    simulation = await createSimulation(model, {
      backend,
      integrator,
      dt,
      ...solverOptions,
    } as SimulationOptions);
  } catch (error) {
    if (!(error instanceof WebGpuUnavailableError) || values.backend === 'webgpu') throw error;
    process.stderr.write(`${error.message}\nFalling back to the CPU backend.\n`);
    backend = 'cpu';
    simulation = await createSimulation(model, { backend, integrator, dt, ...solverOptions });
  }
  console.log(
    `Weft demo: ${size}×${size} cloth (${model.particleCount} particles, ${model.springCount} springs), ${integrator}, dt = ${dt.toPrecision(4)} s`,
  );
  console.log(`Backend: ${backend} — ${simulation.description}`);
  try {
    const corner = 0; // particle (0, 0): the free corner opposite the pinned edge
    const result = await integrate(
      simulation,
      steps,
      steps || 1,
      new ProgressBar('simulating', steps, process.stdout),
    );
    const e = energy(model, result.final.positions, result.final.velocities);
    const sag = model.particlePositions[3 * corner + 1]! - result.final.positions[3 * corner + 1]!;
    console.log(
      `Simulated ${(steps * dt).toFixed(3)} s in ${steps} steps: ${result.seconds.toFixed(2)} s wall, ${(steps / result.seconds).toFixed(0)} steps/s, ${((steps * dt) / result.seconds).toFixed(2)} simulated s per wall s`,
    );
    console.log(`Free corner sag: ${sag.toFixed(4)} m`);
    const stats = await simulation.readSolverStats();
    if (stats && stats.linearSolves > 0) {
      console.log(
        `Linear solver: ${(stats.linearIterations / stats.linearSolves).toFixed(1)} iterations per solve (max ${stats.maxLinearIterations}), last relative residual ${stats.lastResidual.toExponential(2)}, ${stats.unconvergedSolves} of ${stats.linearSolves} solves unconverged` +
          (stats.newtonIterations > 0
            ? `; Newton: ${(stats.newtonIterations / stats.steps).toFixed(2)} iterations per step, ${stats.unconvergedSteps} steps unconverged`
            : ''),
      );
    }
    console.log(
      `Final energy: ${e.total.toFixed(4)} J (kinetic ${e.kinetic.toFixed(4)}, spring ${e.spring.toFixed(4)}, gravity ${e.gravity.toFixed(4)})`,
    );
  } finally {
    simulation.destroy();
  }
}

async function info(): Promise<void> {
  console.log(`Node ${process.version} (${process.platform}-${process.arch})`);
  try {
    const { adapter, name, via } = await findAdapter();
    console.log(`WebGPU adapter: ${name}`);
    console.log(`Found through: ${via}`);
    const limits = adapter.limits;
    for (const key of [
      'maxBufferSize',
      'maxStorageBufferBindingSize',
      'maxStorageBuffersPerShaderStage',
      'maxComputeWorkgroupSizeX',
      'maxComputeInvocationsPerWorkgroup',
      'maxComputeWorkgroupsPerDimension',
    ] as const) {
      console.log(`  ${key}: ${limits[key]}`);
    }
    console.log(`Features: ${[...adapter.features].sort().join(', ') || '(none)'}`);
  } catch (error) {
    if (!(error instanceof WebGpuUnavailableError)) throw error;
    console.log(error.message);
    process.exitCode = 3;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'run') await run(rest);
    else if (command === 'demo') await demo(rest);
    else if (command === 'info') await info();
    else if (command === undefined || command === 'help' || command === '--help' || command === '-h')
      console.log(USAGE);
    else throw new WeftInputError('command', `unknown command '${command}' (run, demo, info, help)`);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof WeftError) {
      console.error(`weft: ${error.message}`);
      return exitCode(error);
    }
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      console.error(`weft: ${(error as Error).message}`);
      return 2;
    }
    console.error(`weft: internal error: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}

// Dawn's worker threads can keep the process alive after the work is done: exit explicitly.
process.exit(await main(process.argv.slice(2)));
