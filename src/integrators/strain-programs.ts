/**
 * Strain limits as ops of the scheme's program (src/model/strain-limit.ts): after each step (and
 * startup step), `iterations` Jacobi sweeps of Provot's (1995) correction, each
 *   Δ = strainCorrection(x),  x ← x + Δ,  v ← v + Δ / h,
 * the velocity changed with the position so that the next step does not undo the correction
 * (Provot §4 adjusts velocities likewise). Fixed particles never move (Δ = 0 where w = 0).
 * rk45 and step doubling sweep after each accepted step, with the accepted h (as their contacts
 * project: src/integrators/contact-programs.ts), so an attempt is free of the limit and its error
 * estimate that of the unconstrained flight; so does velocity-implicit Euler (its WebGPU program
 * through these ops, the CPU's Drake stepper, src/backends/cpu/velocity-implicit-euler.ts, by the
 * same sweeps in its accept()).
 */
import type { ResolvedStrainLimit } from '../model/strain-limit.ts';
import type { Op, Program } from './program.ts';
import { withMomentumImpulse } from './program-transforms.ts';

/** `program` with its strain-limit sweeps after each step (null: unchanged). */
export function withStrainLimitOps(program: Program, limit: ResolvedStrainLimit | null): Program {
  if (!limit) return program;
  const sweep: Op[] = [
    { op: 'strainCorrection', x: 'x', to: 'strain.dx', maxStretch: limit.maxStretch },
    { op: 'combine', outputs: [
      { to: 'x', terms: [[1, 'x'], [1, 'strain.dx']] },
      { to: 'v', terms: [[1, 'v'], [(h: number) => 1 / h, 'strain.dx']] },
    ] },
  ];
  // The variational scheme's momenta get the sweeps' impulse (p += M Δv): without it the next step
  // re-applied the stretch they removed (a 10² cloth stretched 193 % past a 10 % limit).
  const sweeps = withMomentumImpulse(Array.from({ length: limit.iterations }, () => sweep).flat(), program.momenta, 'strain'); // prettier-ignore
  if (program.adaptive) return { ...program, adaptive: { ...program.adaptive, accept: [...program.adaptive.accept, ...sweeps] } }; // prettier-ignore
  return { ...program, startup: [...program.startup, ...sweeps], step: [...program.step, ...sweeps] };
} // prettier-ignore
