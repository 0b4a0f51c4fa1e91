/** `weft demo`: Warp's cross-framework cloth protocol, timed, with a summary on stdout. */
import { parseArgs } from 'node:util';
import type { Simulation } from '../backends/common/simulation-types.ts';
import { WebGpuUnavailableError, WeftInputError } from '../core/errors.ts';
import { isAdaptive } from '../integrators/catalog.ts';
import type { SolverStats } from '../integrators/implicit-options.ts';
import { buildCloth } from '../model/builders.ts';
import { energy } from '../model/energy.ts';
import { createSimulation, type SimulationOptions } from '../simulation/create-simulation.ts';
import { optionsFromFlags, PARSE_OPTIONS } from './flags.ts';
import { integrate } from './frames.ts';
import { backendName, integer, integratorName, number } from './inputs.ts';
import { ProgressBar } from './progress.ts';

/** The largest demo cloth side: 2048² = 4.2 M particles, 25 M springs (about 1.5 GB on the CPU). */
const MAX_DEMO_SIZE = 2048;

export async function demo(args: string[]): Promise<void> {
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
    const solverLine = solverSummary(await simulation.readSolverStats());
    if (solverLine) console.log(solverLine);
    console.log(
      `Final energy: ${e.total.toFixed(4)} J (kinetic ${e.kinetic.toFixed(4)}, spring ${e.spring.toFixed(4)}, gravity ${e.gravity.toFixed(4)})`,
    );
  } finally {
    simulation.destroy();
  }
}

/** The solver line of the summary ('' for an explicit integrator). */
function solverSummary(stats: SolverStats | null): string {
  if (!stats || stats.linearSolves === 0) return '';
  const newton =
    stats.newtonIterations > 0
      ? `; Newton: ${(stats.newtonIterations / stats.steps).toFixed(2)} iterations per step, ${stats.unconvergedSteps} steps unconverged`
      : '';
  return `Linear solver: ${(stats.linearIterations / stats.linearSolves).toFixed(1)} iterations per solve (max ${stats.maxLinearIterations}), last relative residual ${stats.lastResidual.toExponential(2)}, ${stats.unconvergedSolves} of ${stats.linearSolves} solves unconverged${newton}`;
}
