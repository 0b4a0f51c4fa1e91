/**
 * Programs rewritten (src/integrators/program.ts): vector names mapped, and steps scaled. Step
 * doubling (adaptive-programs.ts) builds its half steps and its renamed full step from any
 * fixed-step program with these. And ops that change v after a step, with a scheme's momenta kept
 * in step (withMomentumImpulse).
 */
import { NO_RHS_TERMS } from './implicit-schemes.ts';
import type { Coefficient, Op, Output } from './program.ts';

/** `ops` with every vector name mapped (ring entries and `x`, `v` included). */
export function renameOps(ops: readonly Op[], rename: (name: string) => string): Op[] {
  return ops.map((op): Op => {
    switch (op.op) {
      case 'eval':
        return { ...op, x: rename(op.x), v: rename(op.v), a: rename(op.a) };
      case 'combine':
        return {
          op: 'combine',
          outputs: op.outputs.map((o) => ({
            to: rename(o.to),
            terms: o.terms.map(([c, n]) => [c, rename(n)] as const),
          })),
        };
      case 'norm':
        return {
          ...op,
          error: [rename(op.error[0]), rename(op.error[1])],
          start: [rename(op.start[0]), rename(op.start[1])],
          end: [rename(op.end[0]), rename(op.end[1])],
        };
      case 'jacobians':
        return { ...op, x: rename(op.x), v: rename(op.v) };
      case 'rhs': {
        const windAt = mapWindAt(op, ([c, n]) => [c, rename(n)]);
        return { ...op, to: rename(op.to), v: rename(op.v), a: rename(op.a), extra: rename(op.extra), ...windAt }; // prettier-ignore
      }
      case 'solve':
        return { ...op, rhs: rename(op.rhs), to: rename(op.to) };
      case 'contacts':
        return {
          ...op,
          x: rename(op.x),
          v: rename(op.v),
          solution: rename(op.solution),
          base: rename(op.base),
        };
      case 'project':
        return { ...op, x: rename(op.x), v: rename(op.v), ...(op.restart ? { restart: op.restart.map(rename) } : {}) }; // prettier-ignore
      case 'selfContacts':
        return { ...op, x: rename(op.x), v: rename(op.v) };
      case 'selfFailSafe':
        return { ...op, x: rename(op.x), v: rename(op.v), start: rename(op.start), ...(op.restart ? { restart: op.restart.map(rename) } : {}) }; // prettier-ignore
      case 'aero':
        return { ...op, x: rename(op.x), v: rename(op.v), to: rename(op.to) };
      case 'strainCorrection':
        return { ...op, x: rename(op.x), to: rename(op.to) };
      case 'contactFilter':
        return { ...op, vector: rename(op.vector), ...(op.from ? { from: rename(op.from) } : {}) };
      case 'contactFriction':
        return { ...op, solution: rename(op.solution), base: rename(op.base), x: rename(op.x) };
      case 'contactForces':
        return {
          ...op,
          solution: rename(op.solution),
          rhs: rename(op.rhs),
          base: rename(op.base),
          x: rename(op.x),
        };
      case 'measure':
        return {
          op: 'measure',
          quantities: Object.fromEntries(Object.entries(op.quantities).map(([q, n]) => [q, rename(n)])),
        };
      case 'newton':
        return {
          ...op,
          begin: renameOps(op.begin, rename),
          residual: renameOps(op.residual, rename),
          update: renameOps(op.update, rename),
        };
      default:
        return op;
    }
  });
}

/**
 * `ops` taking a step of `factor` h that starts `start` h after the step's: every coefficient
 * c(h) becomes c(factor · h) (combinations, right-hand sides and linear systems alike), and every
 * stage time c (evaluations, wind) start + factor · c.
 */
export function scaleStep(ops: readonly Op[], factor: number, start = 0): Op[] {
  const scaled = (c: Coefficient): Coefficient => (typeof c === 'number' ? c : (h: number) => c(factor * h));
  return ops.map((op): Op => {
    // A stage at t + c (factor h), the step starting at t + start h: c' = start + factor c.
    if (op.op === 'eval' || op.op === 'aero' || op.op === 'rhs')
      return timeShifted(op, factor, start, scaled);
    if (op.op === 'solve') return { ...op, system: (h: number) => op.system(factor * h) };
    if (op.op === 'contacts') return { ...op, scale: scaled(op.scale) };
    if (op.op === 'contactForces' || op.op === 'contactFriction')
      return { ...op, scale: scaled(op.scale), impulse: scaled(op.impulse) };
    if (op.op === 'newton')
      return {
        ...op,
        stepFraction: (op.stepFraction ?? 1) * factor,
        begin: scaleStep(op.begin, factor, start),
        residual: scaleStep(op.residual, factor, start),
        update: scaleStep(op.update, factor, start),
      };
    if (op.op !== 'combine') return op;
    return {
      op: 'combine',
      outputs: op.outputs.map((o) => ({
        to: o.to,
        terms: o.terms.map(([c, n]) => [scaled(c), n] as const),
      })),
    };
  });
}

/** An `eval`, `aero` or `rhs` of a step scaleStep() maps: its stage c → start + factor c (and aero's and rhs's coefficients). */
function timeShifted(
  op: Extract<Op, { op: 'eval' | 'aero' | 'rhs' }>,
  factor: number,
  start: number,
  scaled: (c: Coefficient) => Coefficient,
): Op {
  const stage = start + factor * (op.stage ?? 0);
  if (op.op === 'aero') return { ...op, stage, scale: scaled(op.scale) };
  if (op.op !== 'rhs') return stage === 0 ? op : { ...op, stage };
  const windAt = mapWindAt(op, ([c, n]) => [scaled(c), n]);
  return { ...op, stage, coefficients: (h: number) => op.coefficients(factor * h), ...windAt };
}

type Term = Output['terms'][number];

/** `{ windAt }` of a right-hand side with each of its terms mapped; {} when it has none. */
function mapWindAt(op: Extract<Op, { op: 'rhs' }>, map: (term: Term) => Term): { windAt?: { x: Term[]; v: Term[] } } {
  return op.windAt ? { windAt: { x: op.windAt.x.map(map), v: op.windAt.v.map(map) } } : {};
} // prettier-ignore

/**
 * `ops` (which change `v` after a step: a projection, a fail-safe) followed, for a scheme that
 * carries momenta p apart from M v (the variational one's `momenta`), by the impulse they gave:
 *   p += M (v after − v before),
 * so the next step starts from the changed motion (without it the next step re-applies what the
 * ops removed: a vertex stuck to the triangle its fail-safe stopped it at, a particle pressed
 * into a collider). `name` prefixes the two vectors it uses. No momenta: `ops` unchanged.
 */
export function withMomentumImpulse(ops: readonly Op[], momenta: string | undefined, name: string): Op[] {
  if (!momenta) return [...ops];
  const [before, change] = [`${name}.v0`, `${name}.dv`];
  return [
    { op: 'combine', outputs: [{ to: before, terms: [[1, 'v']] }] },
    ...ops,
    { op: 'combine', outputs: [{ to: change, terms: [[1, 'v'], [-1, before]] }] },
    { op: 'rhs', to: momenta, v: change, a: change, extra: momenta, coefficients: () => ({ ...NO_RHS_TERMS, extraScale: 1, velocityMass: 1 }) },
  ]; // prettier-ignore
}
