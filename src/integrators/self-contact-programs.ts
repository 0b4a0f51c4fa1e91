/**
 * Self-collision as ops of the scheme's program (src/model/self-collision.ts; design:
 * reports/design/self-collision.md §1): each step (and startup step) starts by copying x to
 * `self.x0` and listing the pairs within reach (`selfContacts`), and ends with the fail-safe
 * (`selfFailSafe`), the last op that moves a particle. The pairs' repulsion needs no op: every
 * `eval`, `jacobians`, `rhs` and system product of the step includes it.
 *
 * Implicit Euler, Newmark, backward Euler (its Newton loop re-evaluates the pairs' terms at each
 * iterate; the list is the step's) and every explicit and multistep scheme take it
 * (test/implicit-self-contact.test.ts). rk45 and step doubling list the pairs in `first`, once per
 * accepted state with the h of its first attempt (a rejected attempt's retry, at a smaller h,
 * reaches less far, so the list still covers it), and end each accepted step with the fail-safe
 * (test/adaptive-features.test.ts); so does velocity-implicit Euler's program on WebGPU (its
 * CPU path, Drake's stepper, lists the pairs at each attempt itself:
 * src/backends/cpu/velocity-implicit-euler.ts). The variational scheme's momenta get the
 * fail-safe's impulse (withMomentumImpulse). WebGPU runs the same ops (src/backends/webgpu/self-contact-ops.ts).
 */
import type { Op, Program } from './program.ts';
import { withMomentumImpulse } from './program-transforms.ts';

/** The vector that holds the positions a step starts from (the fail-safe's reference). */
export const SELF_START = 'self.x0';

/** `program` with its self-collision ops (`enabled` false: unchanged). */
export function withSelfContact(program: Program, enabled: boolean): Program {
  if (!enabled) return program;
  const begin: Op[] = [
    { op: 'combine', outputs: [{ to: SELF_START, terms: [[1, 'x']] }] },
    { op: 'selfContacts', x: 'x', v: 'v' },
  ];
  // A scheme that carries momenta (the variational one's p) gets the fail-safe's impulse too.
  const end = withMomentumImpulse([{ op: 'selfFailSafe', x: 'x', v: 'v', start: SELF_START }], program.momenta, 'self'); // prettier-ignore
  const adaptive = program.adaptive;
  if (adaptive) return { ...program, adaptive: { ...adaptive, first: [...begin, ...adaptive.first], accept: [...adaptive.accept, ...end] } }; // prettier-ignore
  const wrap = (ops: readonly Op[]): Op[] => (ops.length === 0 ? [] : [...begin, ...ops, ...end]);
  return { ...program, startup: wrap(program.startup), step: wrap(program.step) };
} // prettier-ignore
