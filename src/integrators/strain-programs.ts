/**
 * Strain limits as ops of the scheme's program (src/model/strain-limit.ts): after each step (and
 * startup step), `iterations` Jacobi sweeps of Provot's (1995) correction, each
 *   Δ = strainCorrection(x),  x ← x + Δ,  v ← v + Δ / h,
 * the velocity changed with the position so that the next step does not undo the correction
 * (Provot §4 adjusts velocities likewise). Fixed particles never move (Δ = 0 where w = 0).
 * Adaptive integrators refuse strain limits (their programs are not transformed yet).
 */
import { WeftInputError } from '../core/errors.ts';
import type { ResolvedStrainLimit } from '../model/strain-limit.ts';
import { INTEGRATORS, type IntegratorName } from './catalog.ts';
import type { Op, Program } from './program.ts';

/** Throws when strain limits cannot be used with this integrator. */
export function requireStrainLimitSupport(
  limit: ResolvedStrainLimit | null,
  integrator: IntegratorName,
): void {
  if (limit && INTEGRATORS[integrator].family === 'adaptive')
    throw new WeftInputError('strainLimit', `is not supported by the adaptive integrator '${integrator}' yet: use a fixed-step one`); // prettier-ignore
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
  return { ...program, startup: [...program.startup, ...sweeps], step: [...program.step, ...sweeps] };
} // prettier-ignore
