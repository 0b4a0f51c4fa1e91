/**
 * The program transforms (src/integrators/program-transforms.ts) on a right-hand side's `windAt`
 * and the momentum impulse, against values written here: scaleStep(ops, ½, ½) is the second half
 * of a step (every coefficient c(h) → c(h/2), every stage c → ½ + c/2), renameOps maps every name.
 */
import { expect, test } from 'vitest';
import { NO_RHS_TERMS, renameOps, scaleStep, withMomentumImpulse, type Op } from '../src/internal.ts';

/** Newmark's right-hand side as implicit-programs.ts writes it (the wind at x + h v + ½h² a, v + h a). */
const rhs: Op = {
  op: 'rhs', to: 'b', v: 'v', a: 'a', extra: 'p', stage: 1, coefficients: () => NO_RHS_TERMS,
  windAt: { x: [[1, 'x'], [(h) => h, 'v'], [(h) => (h * h) / 2, 'a']], v: [[1, 'v'], [(h) => h, 'a']] },
}; // prettier-ignore

/** Each term of `terms` as [coefficient at h, name]. */
const at = (terms: readonly (readonly [number | ((h: number) => number), string])[], h: number) =>
  terms.map(([c, name]) => [typeof c === 'number' ? c : c(h), name]);

test("scaleStep's second half step: windAt's coefficients at h/2, the stage at ½ + c/2", () => {
  const [half] = scaleStep([rhs], 0.5, 0.5) as [Extract<Op, { op: 'rhs' }>];
  expect(half.stage).toBe(1); // ½ + ½ · 1
  // At h = 0.1 the half step's h is 0.05: x + 0.05 v + 0.00125 a, v + 0.05 a.
  const expectTerms = (got: (string | number)[][], want: [number, string][]) => {
    expect(got.map(([, name]) => name)).toEqual(want.map(([, name]) => name));
    // Products of h = 0.1 / 2 in float64: to 1e-15.
    got.forEach(([c], k) => expect(Math.abs((c as number) - want[k]![0])).toBeLessThan(1e-15));
  };
  expectTerms(at(half.windAt!.x, 0.1), [
    [1, 'x'],
    [0.05, 'v'],
    [0.00125, 'a'],
  ]);
  expectTerms(at(half.windAt!.v, 0.1), [
    [1, 'v'],
    [0.05, 'a'],
  ]);
});

test('renameOps maps the names in windAt', () => {
  const [renamed] = renameOps([rhs], (name) => `full.${name}`) as [Extract<Op, { op: 'rhs' }>];
  expect(at(renamed.windAt!.x, 1).map(([, name]) => name)).toEqual(['full.x', 'full.v', 'full.a']);
  expect(at(renamed.windAt!.v, 1).map(([, name]) => name)).toEqual(['full.v', 'full.a']);
  expect([renamed.to, renamed.v, renamed.a, renamed.extra]).toEqual(['full.b', 'full.v', 'full.a', 'full.p']);
});

test("renameOps maps a projection's and the fail-safe's restarted history", () => {
  const project: Op = { op: 'project', x: 'x', v: 'v', drift: 0, restart: ['Fv@0', 'Fv@1'] };
  const failSafe: Op = { op: 'selfFailSafe', x: 'x', v: 'v', start: 's', restart: ['Fv@0'] };
  expect(renameOps([project, failSafe], (name) => `full.${name}`)).toEqual([
    { op: 'project', x: 'full.x', v: 'full.v', drift: 0, restart: ['full.Fv@0', 'full.Fv@1'] },
    { op: 'selfFailSafe', x: 'full.x', v: 'full.v', start: 'full.s', restart: ['full.Fv@0'] },
  ]);
});

test('withMomentumImpulse: p += M (v after − v before) around the ops, nothing without momenta', () => {
  const project: Op = { op: 'project', x: 'x', v: 'v', drift: 1 };
  expect(withMomentumImpulse([project], undefined, 'c')).toEqual([project]);
  const ops = withMomentumImpulse([project], 'p', 'c');
  expect(ops.slice(0, 3)).toEqual([
    { op: 'combine', outputs: [{ to: 'c.v0', terms: [[1, 'v']] }] },
    project,
    {
      op: 'combine',
      outputs: [
        {
          to: 'c.dv',
          terms: [
            [1, 'v'],
            [-1, 'c.v0'],
          ],
        },
      ],
    },
  ]);
  const impulse = ops[3] as Extract<Op, { op: 'rhs' }>;
  // b = c_w w + m c_v v with w = p, v = Δv: p + M Δv.
  expect([impulse.to, impulse.v, impulse.extra]).toEqual(['p', 'c.dv', 'p']);
  expect(impulse.coefficients(0.01)).toEqual({ ...NO_RHS_TERMS, extraScale: 1, velocityMass: 1 });
});
