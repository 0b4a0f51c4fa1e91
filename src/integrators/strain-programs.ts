/**
 * Strain limits as ops of the scheme's program (src/model/strain-limit.ts): after each step (and
 * startup step), `iterations` Jacobi sweeps of Provot's (1995) correction, each
 *   Δ = strainCorrection(x),  x ← x + Δ,  v ← v + Δ / h,
 * the velocity changed with the position so that the next step does not undo the correction
 * (Provot §4 adjusts velocities likewise). Fixed particles never move (Δ = 0 where w = 0).
 * rk45 and step doubling sweep after each accepted step, with the accepted h (as their contacts
 * project: src/integrators/contact-programs.ts), so an attempt is free of the limit and its error
 * estimate that of the unconstrained flight; velocity-implicit Euler refuses strain limits (the
 * CPU runs Drake's stepper, src/backends/cpu/velocity-implicit-euler.ts, which has no such ops).
 */
import { WeftInputError } from '../core/errors.ts';
import type { ResolvedStrainLimit } from '../model/strain-limit.ts';
import type { IntegratorName } from './catalog.ts';
import type { Op, Program } from './program.ts';

/** Throws when strain limits cannot be used with this integrator. */
export function requireStrainLimitSupport(
  limit: ResolvedStrainLimit | null,
  integrator: IntegratorName,
): void {
  if (limit && integrator === 'velocity-implicit-euler')
    throw new WeftInputError('strainLimit', `is not supported by '${integrator}' yet: use 'rk45', 'step-doubling' or a fixed-step integrator`); // prettier-ignore
}

/** `program` with its strain-limit sweeps after each step (null: unchanged). */
export function withStrainLimitOps(program: Program, integrator: IntegratorName, limit: ResolvedStrainLimit | null): Program {
  requireStrainLimitSupport(limit, integrator);
  if (!limit) return program;
  const sweep: Op[] = [
    { op: 'strainCorrection', x: 'x', to: 'strain.dx', maxStretch: limit.maxStretch },
    { op: 'combine', outputs: [
      { to: 'x', terms: [[1, 'x'], [1, 'strain.dx']] },
      { to: 'v', terms: [[1, 'v'], [(h: number) => 1 / h, 'strain.dx']] },
    ] },
  ];
  const sweeps = Array.from({ length: limit.iterations }, () => sweep).flat();
  if (program.adaptive) return { ...program, adaptive: { ...program.adaptive, accept: [...program.adaptive.accept, ...sweeps] } }; // prettier-ignore
  return { ...program, startup: [...program.startup, ...sweeps], step: [...program.step, ...sweeps] };
} // prettier-ignore
