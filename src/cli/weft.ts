/**
 * The `weft` command line: `weft run`, `weft info`, `weft demo`. User errors print one line and
 * exit non-zero (2: bad input, 3: no WebGPU, 4: diverged or no step size meets the accuracy);
 * never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitCode, WebGpuUnavailableError, WeftError, WeftInputError } from '../core/errors.ts';
import { INTEGRATOR_NAMES, INTEGRATORS, isAdaptive, type IntegratorName } from '../integrators/catalog.ts';
import type { AdaptiveBackendOptions } from '../simulation/adaptive-simulation.ts';
import type { AdaptiveIntegratorName, AdaptiveOptions } from '../integrators/adaptive-options.ts';
import { buildCloth } from '../model/builders.ts';
import { energy, hamiltonian } from '../model/energy.ts';
import type { Model } from '../model/model.ts';
import { parseScene } from '../model/scene.ts';
import { createSimulation, type SimulationOptions } from '../simulation/create-simulation.ts';
import type { Simulation, SimulationState } from '../backends/common/simulation-types.ts';
import type { SolverStats } from '../integrators/implicit-options.ts';
import { findAdapter } from '../backends/webgpu/device.ts';
import { decimalNumber, flagHelp, optionsFromFlags, PARSE_OPTIONS } from './flags.ts';
import { JsonOutput } from './output.ts';
import { ProgressBar } from './progress.ts';
import { didYouMean, shortestFloat32 } from './text.ts';
import packageJson from '../../package.json';

/** The largest demo cloth side: 2048² = 4.2 M particles, 25 M springs (about 1.5 GB on the CPU). */
const MAX_DEMO_SIZE = 2048;

const USAGE = `Usage:
  weft run <scene.json> --integrator <name> --dt <h> --steps <n> [--every k] [--out file] [--progress]
           [--allow-unconverged] [--backend cpu|webgpu] [options of the integrator]
  weft run <scene.json> --integrator rk45|step-doubling|velocity-implicit-euler --t-end <s>
           [--frames m] [--out file] [--progress] [options of the integrator]
  weft demo [--backend webgpu|cpu] [--size n] [--steps n] [--integrator name] [--dt h] [--stiffness k]
           [options of the integrator]
  weft info
  weft --version
Integrators: ${INTEGRATOR_NAMES.join(', ')}
Options (a flag that does not apply to the integrator chosen is an error):
${flagHelp()}`;

function number(option: string, text: string | undefined, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new WeftInputError(option, 'is required');
    return fallback;
  }
  return decimalNumber(option, text);
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
  if (!Object.hasOwn(INTEGRATORS, name)) {
    throw new WeftInputError(
      '--integrator',
      `unknown integrator '${name}'${didYouMean(name, INTEGRATOR_NAMES)} (known: ${INTEGRATOR_NAMES.join(', ')})`,
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
    // A UTF-8 byte-order mark (some editors write one) is not part of the JSON.
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
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

/**
 * A frame of `state`. From float32 storage (WebGPU, or the CPU's f32), coordinates are written
 * with the fewest digits that read back as the same float32 (0.3, not 0.30000001192092896).
 */
function frameOf(model: Model, state: SimulationState, float32: boolean): Frame {
  const numbers = (values: Float64Array): number[] =>
    Array.from(values, float32 ? shortestFloat32 : (x) => x);
  return {
    step: state.step,
    time: state.time,
    positions: numbers(state.positions),
    velocities: numbers(state.velocities),
    energy: energy(model, state.positions, state.velocities).total,
    ...(state.momenta ? { hamiltonian: hamiltonian(model, state.positions, state.momenta) } : {}),
  };
}

/** Steps to `steps`, handing `onFrame` a frame at 0, every `every` steps, and at the end. */
async function integrate(
  simulation: Simulation,
  steps: number,
  every: number,
  onFrame: (frame: Frame) => Promise<void>,
  float32: boolean,
  progress?: ProgressBar,
): Promise<{ initial: SimulationState; final: SimulationState; seconds: number }> {
  const initial = await simulation.readState();
  await onFrame(frameOf(simulation.model, initial, float32));
  const started = performance.now();
  let final = initial;
  let done = 0;
  try {
    while (done < steps) {
      const next = Math.min(steps, (Math.floor(done / every) + 1) * every);
      const base = done;
      await simulation.advance(next - done, (d) => {
        progress?.update(base + d);
        if (interruption.requested) throw new WeftError('interrupted', `interrupted (Ctrl-C) at step ${base + d} of ${steps}: the output ends with the state there`); // prettier-ignore
      });
      done = next;
      final = await simulation.readState();
      await onFrame(frameOf(simulation.model, final, float32));
    }
  } catch (error) {
    // Ctrl-C: the state reached is the last frame, then the error ends the document.
    if (error instanceof WeftError && error.code === 'interrupted') await onFrame(frameOf(simulation.model, await simulation.readState(), float32)); // prettier-ignore
    throw error;
  }
  return { initial, final, seconds: (performance.now() - started) / 1000 };
}

/** Set by Ctrl-C during `weft run`: the run stops at its next chunk and writes what it has. */
const interruption = { requested: false };

async function run(args: string[]): Promise<void> {
  process.once('SIGINT', () => (interruption.requested = true));
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: PARSE_OPTIONS });
  if (positionals.length !== 1)
    throw new WeftInputError('scene', `give exactly one scene file, got ${positionals.length}`);
  const integrator = integratorName(values['integrator'] as string | undefined);
  const backend = backendName(values['backend'] as string | undefined, 'cpu');
  if (values['t-end'] !== undefined && !isAdaptive(integrator)) {
    throw new WeftInputError(
      '--t-end',
      `'${integrator}' takes fixed steps: give --dt and --steps (--t-end is for rk45, step-doubling, velocity-implicit-euler)`,
    );
  }
  // Every flag is checked against the options table; one that does not apply is an error.
  const {
    steps: givenSteps,
    every: givenEvery,
    tEnd,
    frames,
    ...flagged
  } = optionsFromFlags(values, integrator, backend);
  const precision =
    (flagged['precision'] as 'f64' | 'f32' | undefined) ?? (backend === 'webgpu' ? 'f32' : 'f64');
  if (isAdaptive(integrator)) {
    if (tEnd === undefined) throw new WeftInputError('--t-end', 'is required');
    return runAdaptive(positionals[0]!, integrator, values, {
      ...flagged,
      integrator,
      backend,
      precision,
      tEnd: tEnd as number,
      frames: (frames as number | undefined) ?? 1,
    });
  }
  if (flagged['dt'] === undefined) throw new WeftInputError('--dt', 'is required');
  if (givenSteps === undefined) throw new WeftInputError('--steps', 'is required');
  const steps = givenSteps as number;
  const every = (givenEvery as number | undefined) ?? Math.max(1, steps);
  const dt = flagged['dt'] as number;
  const model = readScene(positionals[0]!);
  const options = { ...flagged, backend, integrator, precision } as SimulationOptions;
  const simulation = await createSimulation(model, options);
  let output: JsonOutput | undefined;
  try {
    output = await JsonOutput.open(values['out'] as string | undefined);
    await output.begin({ integrator, backend, dt });
    const progress = values['progress'] ? new ProgressBar(integrator, steps) : undefined;
    const result = await integrate(
      simulation,
      steps,
      every,
      (frame) => output!.frame(frame),
      precision === 'f32',
      progress,
    );
    const solver = await simulation.readSolverStats();
    await output.end({
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
        solver,
      },
    });
    output = undefined;
    if (solver && !values['allow-unconverged']) requireConverged(solver);
  } catch (error) {
    await output?.fail(error);
    throw error;
  } finally {
    simulation.destroy();
  }
}

/**
 * A run whose linear solves or Newton (corrector) loops stopped at their caps is not the answer
 * asked for: its output is complete, but it ends with exit 4 unless --allow-unconverged.
 */
function requireConverged(stats: SolverStats): void {
  const failed = [
    stats.unconvergedSolves > 0 ? `${stats.unconvergedSolves} of ${stats.linearSolves} linear solves` : '',
    stats.unconvergedSteps > 0
      ? `the Newton or corrector loops of ${stats.unconvergedSteps} of ${stats.steps} steps`
      : '',
  ].filter((part) => part !== '');
  if (failed.length > 0)
    throw new WeftError('unconverged', `${failed.join(' and ')} stopped at their caps unconverged (output written; raise --max-iterations or --newton-iterations, lower --dt, or pass --allow-unconverged)`); // prettier-ignore
}

/** `weft run` with an adaptive integrator: integrate to --t-end, frames at --frames equal intervals. */
async function runAdaptive(
  scenePath: string,
  integrator: AdaptiveIntegratorName,
  values: Record<string, string | boolean | undefined>,
  given: Record<string, unknown> & {
    backend: 'cpu' | 'webgpu';
    precision: string;
    tEnd: number;
    frames: number;
  },
): Promise<void> {
  const { tEnd, frames, backend, precision, ...rest } = given;
  const model = readScene(scenePath);
  const options = { ...rest, backend, precision, integrator } as AdaptiveOptions & AdaptiveBackendOptions;
  const simulation = await createSimulation(model, options);
  let output: JsonOutput | undefined;
  try {
    output = await JsonOutput.open(values['out'] as string | undefined);
    await output.begin({ integrator, backend, tEnd });
    const progress = values['progress'] ? new ProgressBar(integrator, 1000) : undefined;
    const initial = await simulation.readState();
    await output.frame(frameOf(model, initial, precision === 'f32'));
    const started = performance.now();
    let final = initial;
    for (let f = 1; f <= frames; f++) {
      const target = (tEnd * f) / frames;
      await simulation.advanceTo(target, (t) => progress?.update(Math.round((1000 * t) / tEnd)));
      final = await simulation.readState();
      await output.frame(frameOf(model, final, precision === 'f32'));
    }
    const seconds = (performance.now() - started) / 1000;
    await output.end({
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
    });
  } catch (error) {
    await output?.fail(error);
    throw error;
  } finally {
    simulation.destroy();
  }
}

async function demo(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { ...PARSE_OPTIONS, size: { type: 'string' }, stiffness: { type: 'string' } },
  });
  const text = (key: string): string | undefined =>
    (values as Record<string, string | boolean | undefined>)[key] as string | undefined;
  const size = integer('--size', text('size'), 2, 64);
  if (size > MAX_DEMO_SIZE)
    throw new WeftInputError(
      '--size',
      `must be at most ${MAX_DEMO_SIZE} (a ${MAX_DEMO_SIZE}² cloth), got ${size}`,
    );
  const integrator = integratorName(text('integrator'), 'symplectic-euler');
  if (isAdaptive(integrator)) {
    throw new WeftInputError(
      '--integrator',
      `the demo takes fixed steps; '${integrator}' is adaptive (use weft run --t-end)`,
    );
  }
  let backend = backendName(text('backend'), 'webgpu');
  const { steps: givenSteps, dt: givenDt, ...solverOptions } = optionsFromFlags(values, integrator, backend);
  // Warp's cross-framework cloth protocol: spacing 0.1, mass 0.1, k = 1000, damping 10,
  // two corners fixed, 1/60 s frames in 16 substeps.
  const dt = (givenDt as number | undefined) ?? 1 / 60 / 16;
  const steps = (givenSteps as number | undefined) ?? 960;
  const k = number('--stiffness', text('stiffness'), 1000);
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
  const make = (on: 'cpu' | 'webgpu'): Promise<Simulation> =>
    createSimulation(model, { backend: on, integrator, dt, ...solverOptions } as SimulationOptions);
  let simulation: Simulation;
  try {
    simulation = await make(backend);
  } catch (error) {
    if (!(error instanceof WebGpuUnavailableError) || text('backend') === 'webgpu') throw error;
    process.stderr.write(`${error.message}\nFalling back to the CPU backend.\n`);
    backend = 'cpu';
    simulation = await make(backend);
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
      () => Promise.resolve(),
      false,
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
    if (command === '--version' || command === '-V' || command === 'version')
      console.log(`weft ${packageJson.version}`);
    else if (
      (command === 'run' || command === 'demo') &&
      rest.some((arg) => arg === '--help' || arg === '-h')
    )
      console.log(USAGE);
    else if (command === 'run') await run(rest);
    else if (command === 'demo') await demo(rest);
    else if (command === 'info') await info();
    else if (command === undefined || command === 'help' || command === '--help' || command === '-h')
      console.log(USAGE);
    else
      throw new WeftInputError(
        'command',
        `unknown command '${command}'${didYouMean(command, ['run', 'demo', 'info', 'help'])} (run, demo, info, help, --version)`,
      );
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof WeftError) {
      console.error(`weft: ${error.message}`);
      return exitCode(error);
    }
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      const flag = /'(--?[^']+)'/.exec((error as Error).message)?.[1];
      const message =
        code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag
          ? `unknown flag '${flag}'${didYouMean(flag.replace(/^-+/, ''), Object.keys(PARSE_OPTIONS), '--')} (weft --help lists them)`
          : (error as Error).message;
      console.error(`weft: ${message}`);
      return 2;
    }
    console.error(`weft: internal error: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}

// Dawn's worker threads can keep the process alive after the work is done: exit explicitly.
process.exit(await main(process.argv.slice(2)));
