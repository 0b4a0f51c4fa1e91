/**
 * Strain limits (issue 13): springs are kept from stretching past (1 + maxStretch) times their
 * rest length by position corrections after each step (Provot 1995, "Deformation constraints in a
 * mass-spring model to describe rigid cloth behavior", Graphics Interface; here as Jacobi sweeps,
 * src/integrators/strain-programs.ts), so that soft cloth does not over-stretch.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

/** A strain limit for every spring of the model. */
export interface StrainLimit {
  /** Largest stretch (l − L)/L, > 0 (0.1: 10 % longer than at rest). */
  readonly maxStretch: number;
  /** Jacobi sweeps of corrections per step, an integer in [1, 100]. Default 4. */
  readonly iterations?: number;
}

/** A strain limit with its defaults filled in (Model.strainLimit). */
export interface ResolvedStrainLimit {
  /** Largest stretch (l − L)/L. */
  readonly maxStretch: number;
  /** Jacobi sweeps per step. */
  readonly iterations: number;
}

/** Validates a strain limit, naming `strainLimit.…` fields. */
export function resolveStrainLimit(value: unknown): ResolvedStrainLimit {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WeftInputError('strainLimit', `must be an object { maxStretch, iterations? }, got ${describeValue(value)}`); // prettier-ignore
  const { maxStretch, iterations = 4, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new WeftInputError(`strainLimit.${unknown}`, 'unknown field (strainLimit has maxStretch and iterations)'); // prettier-ignore
  if (typeof maxStretch !== 'number' || !Number.isFinite(maxStretch) || maxStretch <= 0)
    throw new WeftInputError('strainLimit.maxStretch', `must be a finite number > 0 (0.1: 10 % past the rest length), got ${describeValue(maxStretch)}`); // prettier-ignore
  if (typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < 1 || iterations > 100)
    throw new WeftInputError('strainLimit.iterations', `must be an integer in [1, 100], got ${describeValue(iterations)}`); // prettier-ignore
  return { maxStretch, iterations };
}
