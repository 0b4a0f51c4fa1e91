/**
 * The `weft` command line: `weft run`, `weft info`, `weft demo`. User errors print one line and
 * exit non-zero (2: bad input, 3: no WebGPU, 4: diverged or no step size meets the accuracy);
 * never a stack trace.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { exitCode, WebGpuUnavailableError, WeftError, WeftInputError } from '../core/errors.ts';
import { INTEGRATOR_NAMES, INTEGRATORS, isAdaptive } from '../integrators/catalog.ts';
import type { AdaptiveBackendOptions } from '../simulation/create-adaptive-simulation.ts';
import type { AdaptiveIntegratorName, AdaptiveOptions } from '../integrators/adaptive-options.ts';
import { energy } from '../model/energy.ts';
import { createSimulation, type SimulationOptions } from '../simulation/create-simulation.ts';
import type { SolverStats } from '../integrators/implicit-options.ts';
import { findAdapter } from '../backends/webgpu/device.ts';
import { takeGpuFlags } from './gpu-flags.ts';
import { flagHelp, optionsFromFlags, PARSE_OPTIONS } from './flags.ts';
import { JsonOutput } from './output.ts';
import { ProgressBar } from './progress.ts';
import { demo } from './demo.ts';
import { frameOf, integrate, interruption } from './frames.ts';
import { backendName, integratorName, readScene, type LoadedScene } from './inputs.ts';
import { OBJ_SEQUENCE_FLAG } from './mesh-flags.ts';
import { ObjSequence } from './obj-sequence.ts';
import type { Frame } from './frames.ts';
import { didYouMean } from './text.ts';
import packageJson from '../../package.json';

const USAGE = `Usage:
  weft run <scene.json> --integrator <name> --dt <h> --steps <n> [--every k] [--out file] [--progress]
           [--allow-unconverged] [--backend cpu|webgpu] [options of the integrator]
  weft run <scene.json> --integrator rk45|step-doubling|velocity-implicit-euler --t-end <s>
           [--frames m] [--out file] [--progress] [options of the integrator]
  weft run <mesh.obj> … [--density kg/m² | --mass kg] [--stretch k] [--bend k] [--damping c]
           [--pin top-edge|top-corners|corners|none|i,j,…] [--obj-sequence DIR]
           (--obj-sequence DIR: one OBJ file per frame, DIR/frame_000000.obj, …)
  weft demo [--backend webgpu|cpu] [--size n] [--steps n] [--integrator name] [--dt h] [--stiffness k]
           [options of the integrator]
  weft info
  weft --version
Any command: [--gpu-backend vulkan|metal|d3d12] (Dawn's, for WebGPU; default metal on macOS, d3d12 on Windows, else vulkan) [--verbose] (Dawn's driver warnings)
Integrators: ${INTEGRATOR_NAMES.join(', ')}
Options (a flag that does not apply to the integrator chosen is an error):
${flagHelp()}`;

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
  const options = { ...flagged, backend, integrator, precision } as SimulationOptions & { dt: number };
  return runFixed(positionals[0]!, values, options, steps, every);
}

/** `weft run` with a fixed-step integrator: `steps` steps, a frame every `every`. */
async function runFixed(
  scenePath: string,
  values: Record<string, string | boolean | undefined>,
  options: SimulationOptions & { dt: number },
  steps: number,
  every: number,
): Promise<void> {
  const { integrator, backend, dt } = options;
  const precision = options.precision ?? 'f64';
  const scene = readScene(scenePath, values);
  const { model } = scene;
  const sequence = openSequence(scenePath, scene, values);
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
      frameWriter(output, sequence),
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
        ...(scene.mesh ? { mesh: scene.mesh.stats } : {}),
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
  const scene = readScene(scenePath, values);
  const { model } = scene;
  const sequence = openSequence(scenePath, scene, values);
  const options = { ...rest, backend, precision, integrator } as AdaptiveOptions & AdaptiveBackendOptions;
  const simulation = await createSimulation(model, options);
  let output: JsonOutput | undefined;
  try {
    output = await JsonOutput.open(values['out'] as string | undefined);
    const writeFrame = frameWriter(output, sequence);
    await output.begin({ integrator, backend, tEnd });
    const progress = values['progress'] ? new ProgressBar(integrator, 1000) : undefined;
    const initial = await simulation.readState();
    await writeFrame(frameOf(model, initial, precision === 'f32'));
    const started = performance.now();
    let final = initial;
    for (let f = 1; f <= frames; f++) {
      const target = (tEnd * f) / frames;
      await simulation.advanceTo(target, (t) => progress?.update(Math.round((1000 * t) / tEnd)));
      final = await simulation.readState();
      await writeFrame(frameOf(model, final, precision === 'f32'));
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
        ...(scene.mesh ? { mesh: scene.mesh.stats } : {}),
      },
    });
  } catch (error) {
    await output?.fail(error);
    throw error;
  } finally {
    simulation.destroy();
  }
}

/** `--obj-sequence DIR` of a mesh scene, opened (the folder made) before the run starts. */
function openSequence(
  scenePath: string,
  scene: LoadedScene,
  values: Record<string, string | boolean | undefined>,
): ObjSequence | undefined {
  const directory = values[OBJ_SEQUENCE_FLAG] as string | undefined;
  if (directory === undefined || !scene.mesh) return undefined;
  return ObjSequence.open(directory, scene.mesh.mesh, basename(scenePath));
}

/** Each frame into the JSON document, and into the OBJ sequence when there is one. */
function frameWriter(output: JsonOutput, sequence: ObjSequence | undefined): (frame: Frame) => Promise<void> {
  return async (frame) => {
    await output.frame(frame);
    await sequence?.write(frame);
  };
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
  try {
    const [command, ...rest] = takeGpuFlags(argv);
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
