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
import { ringEntry, type Op, type Program } from './program.ts';
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
  // A scheme that carries momenta (the variational one's p) gets the fail-safe's impulse too. A
  // multistep scheme's fail-safe runs before F(y₊) is pushed onto its history (the first
  // `rotate`), as a contact's projection does (contact-programs.ts), and restarts the velocity
  // history of the particles it shortens (every Fv entry their new v): pushed before it, the
  // force at a move that crossed a pair turned the repulsion around (on the far side of the
  // triangle), and AB2's x₊ = x + h (3/2 v_n − ½ v_{n−1}) followed the moves it had undone — a
  // vertex stopped 0.7 mm above a pinned triangle rose 2.9 cm in a step while its velocity
  // pointed down, then drifted back at −0.036 m/s (test/self-contact.test.ts). Every multistep
  // scheme's, the predictor–correctors' too (their x₊ reads the history besides v₊; a contact's
  // projection, a small change, restarts only Adams–Bashforth's). The ring's last entry is the
  // slot the push overwrites.
  const history = Array.from({ length: Math.max(0, (program.rings['Fv'] ?? 0) - 1) }, (_, j) => ringEntry('Fv', j)); // prettier-ignore
  const failSafe: Op = { op: 'selfFailSafe', x: 'x', v: 'v', start: SELF_START, ...(history.length > 0 ? { restart: history } : {}) }; // prettier-ignore
  const end = withMomentumImpulse([failSafe], program.momenta, 'self');
  const adaptive = program.adaptive;
  if (adaptive) return { ...program, adaptive: { ...adaptive, first: [...begin, ...adaptive.first], accept: [...adaptive.accept, ...end] } }; // prettier-ignore
  const wrap = (ops: readonly Op[]): Op[] => {
    const push = ops.findIndex((op) => op.op === 'rotate');
    const at = push < 0 ? ops.length : push;
    return ops.length === 0 ? [] : [...begin, ...ops.slice(0, at), ...end, ...ops.slice(at)];
  };
  return { ...program, startup: wrap(program.startup), step: wrap(program.step) };
} // prettier-ignore
