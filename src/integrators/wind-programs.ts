/**
 * Wind as ops of the scheme's program (src/integrators/program.ts; the forces of
 * src/model/wind.ts): every `eval` of a(x, v) is followed by `aero` adding f_wind / m to it, and
 * every implicit right-hand side `rhs` whose force term is s_f f (implicit-schemes.ts) by `aero`
 * adding s_f f_wind at the state of the last `jacobians` — so each scheme sees the wind wherever
 * it sees the forces, on both backends. A `windClock` op ends each step (the turbulence's time).
 *
 * Implicit solves treat the wind explicitly: its force enters the right-hand side at the start of
 * the step (or Newton iterate), or at the state its `windAt` predicts (Newmark's end of step, which
 * keeps it second order), and its Jacobian is left out of A. The drag's velocity Jacobian
 * −½ ρ C_d A (2|u_n|/3) n nᵀ per triangle couples the three corners through blocks that the
 * spring-only system product has no room for; explicit drag is stable while h ½ ρ C_d A |u_n| / m
 * per vertex stays well below 1 — for a cloth of 10 g particles on 1 cm² triangles in a 20 m/s
 * wind at h = 1/60 s that is 2e-3.
 *
 * The turbulence depends on time: every `aero` after an `eval` takes the wind at that evaluation's
 * stage time t_n + c h (a Runge–Kutta stage's c_i, 1 for a corrector's or history's state at the
 * step's end), so a scheme of order p stays of order p in a turbulent wind; an implicit
 * right-hand side's takes it at the rhs's stage with the state of the last `jacobians` (explicit
 * treatment: t_n + h for backward Euler's Newton iterate, t_n for the other schemes' linearisation
 * at the step's start, within their O(h) error in the drag). t_n is the executor's clock
 * (src/backends/cpu/aero.ts, webgpu/aero-ops.ts): steps × h on fixed-step programs (`windClock`
 * ends each step), the accepted time on adaptive ones (no `windClock`: the stepper sets it before
 * each attempt). Every integrator takes wind; velocity-implicit Euler's CPU path (Drake's stepper,
 * src/backends/cpu/velocity-implicit-euler.ts) adds it to a at each Newton iterate, at t + h.
 */
import type { Op, Program } from './program.ts';
import type { ResolvedWind } from '../model/wind.ts';

/** The state a right-hand side's `windAt` puts the wind at. */
const [WIND_X, WIND_V] = ['wind.x', 'wind.v'];

/** `ops` with an `aero` op after each eval and each rhs (recursively through Newton loops). */
function withAero(ops: readonly Op[], state: { x: string }): Op[] {
  return ops.flatMap((op): Op[] => {
    switch (op.op) {
      case 'eval':
        return [
          op,
          { op: 'aero', x: op.x, v: op.v, to: op.a, scale: 1, perMass: true, stage: op.stage ?? 0 },
        ];
      case 'jacobians':
        state.x = op.x;
        return [op];
      case 'rhs': {
        const scale = (h: number): number => op.coefficients(h).forceScale;
        if (op.coefficients(1).forceScale === 0 && op.coefficients(0.5).forceScale === 0) return [op];
        const stage = op.stage ?? 0;
        if (!op.windAt)
          return [op, { op: 'aero', x: state.x, v: op.v, to: op.to, scale, perMass: false, stage }];
        const at: Op = { op: 'combine', outputs: [{ to: WIND_X, terms: op.windAt.x }, { to: WIND_V, terms: op.windAt.v }] }; // prettier-ignore
        return [op, at, { op: 'aero', x: WIND_X, v: WIND_V, to: op.to, scale, perMass: false, stage }];
      }
      case 'newton':
        return [{ ...op, begin: withAero(op.begin, state), residual: withAero(op.residual, state), update: withAero(op.update, state) }]; // prettier-ignore
      default:
        return [op];
    }
  });
}

/** `program` with the wind's ops (`wind` null: unchanged). */
export function withWindOps(program: Program, wind: ResolvedWind | null): Program {
  if (!wind) return program;
  const state = { x: 'x' };
  const adaptive = program.adaptive;
  if (adaptive) {
    // No clock: the adaptive stepper sets t_n before each attempt; explicit stages only (no `rhs`).
    const [first, attempt, accept] = [adaptive.first, adaptive.attempt, adaptive.accept].map((ops) => withAero(ops, state)); // prettier-ignore
    return { ...program, adaptive: { ...adaptive, first: first!, attempt: attempt!, accept: accept! } };
  }
  const clock: Op = { op: 'windClock' };
  const corrector = program.corrector;
  return {
    ...program,
    setup: withAero(program.setup, state),
    startup: [...withAero(program.startup, state), clock],
    step: [...withAero(program.step, state), clock],
    ...(corrector ? { corrector: { ...corrector, body: withAero(corrector.body, state) } } : {}),
  };
}
