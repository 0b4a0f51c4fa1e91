/**
 * Contacts with a model's colliders as ops of the scheme's program (src/integrators/program.ts):
 * implicit solves are constrained (`contacts` before the solve, `contactForces` after it: Baraff &
 * Witkin 1998 §5.3), explicit and multistep schemes project after each step (`project`). The
 * explicit adaptive schemes (rk45, step doubling) move kinematic colliders and project after
 * each accepted step, with the accepted h: an attempt is free flight, its error estimate that of
 * the flight, and a rejected attempt leaves the state as it was. So does velocity-implicit Euler
 * (its WebGPU program here; Drake's stepper on the CPU in its accept(), with the accepted map's
 * drift ¾). Tried first (29 Nov 2026) with each of its three backward-Euler steps constrained as
 * a fixed step's: single particles rested, stuck at 20° and slid down 35° exactly, GPU = CPU; but
 * an 8² cloth landing on a sphere drove the step from 3e-3 s to 1e-9 s at its first contacts
 * (accuracy 1e-2): the full step and its half steps find different contacts (reach h against
 * h/2), so the estimate there is O(gap), not O(h²). Projected after acceptance, the same drop
 * keeps steps ≥ 0.34 ms (test/adaptive-colliders.test.ts).
 * On WebGPU the ops are shaders/contact-*.wgsl (src/backends/webgpu/contact-ops.ts).
 *
 * Every implicit scheme's constraint is the same one on the end-of-step velocity: a contact found
 * at the step's start with gap g and surface velocity u must end the step with
 *   n·v₊ = T = u·n − max(g, 0)/h
 * (g + h (v₊ − u)·n = 0: on the surface, moving with it). Each scheme's v₊ is affine in its
 * solve's unknown s, v₊ = base + c s, so the constraint is one on n·s with the offset divided by c:
 *   n·s = z = (T − n·base) / c,
 * which the `contacts` op writes as the filtered solve's start x₀ = z n. Per scheme:
 * - implicit Euler, s = Δv: v₊ = v + Δv, base = v, c = 1 (B&W's z);
 * - Newmark, s = a₊: v₊ = v + h ((1 − γ) a + γ a₊), base = v + h (1 − γ) a, c = hγ;
 * - backward Euler, Newton on a with s = δa: v = v₀ + h a, so the iterate a + δa has
 *   v₊ = v + h δa: base = the iterate's v, c = h (each iteration's z makes the updated iterate meet
 *   the constraint: after the first, z = 0 up to the rounding of n·v);
 * RELEASE_NOW (implicit Euler, Newmark, backward Euler): a constraint whose force pulls (λ < 0)
 * is one the step's motion did not need (Baraff & Witkin 1998 §6 release it), but the solve that
 * found it has already pulled the particle onto the surface — a particle its springs
 * hold 2 mm above a sphere, taken as a contact because free flight under gravity alone closes
 * h² |g·n| = 2.7 mm in a step of 1/60 s, was moved down 2 mm, let go, and sprang back up over the
 * next steps: the 128² drop never came to rest (reports/design/contact-release-cycle.md). So
 * `contactForces` with `release` drops the clearly pulling contacts (λ < −RELEASE_NOW_FRACTION
 * (|A s·n| + |b·n|), src/model/colliders.ts) from the solve at once, putting their −λ n back into
 * its residual r = b − A s, and the `solve` after it resumes from s and r without them (an
 * active-set step of the inequality-constrained problem min ½ sᵀA s − bᵀs, n·s ≥ z); with nothing
 * released r is the one the solve ended with and the resumed solve takes no iteration and is not
 * counted. Positions are moved onto surfaces and friction applied by the `contactForces` after
 * it, with λ taken again. Measured (64² drop, steps 210–360): the fastest particle at rest 0.17 m/s
 * before, 0.007–0.014 m/s after. A Newton loop (backward Euler) releases at its first
 * constrained solve, the one in its `begin`; its later iterations keep that active set
 * (contact-release.test.ts's hanging particle was pulled 2 mm down and swung ±1 mm before, and
 * stays put after).
 * The constraint force λ n = (A s − b)·n n is in the units of the scheme's right-hand side; the
 * velocity change it makes is ι λ/m, ι = c/α₀ with α₀ A's mass coefficient without Rayleigh
 * damping (implicit Euler: 1, as before; Newmark: hγ; backward Euler: h): friction's bound
 * μ ι λ/m. Detection runs once per step at the start state (x, v) — in a Newton loop before its
 * first iteration, so the active set is fixed over the iterations and each iteration only restarts
 * its solve from its own z — and a particle behind a surface is moved onto it once, at the first
 * `contactForces` (at `x` for the single-solve schemes, at the step's start x₀ for the Newton ones,
 * whose x₊ = x₀ + h v₊ follows).
 *
 * Where the end position is x₊ = x + h v₊ (implicit and backward Euler) the contact ends the
 * step exactly on the surface. Newmark's is x₊ = x + h v + h² ((½ − β) a + β a₊), so with v₊
 * constrained
 *   n·(x₊ − x) = h (1 − β/γ) n·v + (hβ/γ) n·v₊ + h² ((½ − β) − β (1 − γ)/γ) n·a,
 * for γ = ½, β = ¼ the trapezoid h (n·v + n·v₊)/2: a particle arriving at normal speed w would end
 * that step up to (h w − g)/2 behind the surface (1.3 cm after a 0.19 m fall at h = 1/60 s), so
 * Newmark's step ends with the explicit schemes' `project` (onto the surface, inward normal velocity
 * removed, friction with it). Constraining x₊ instead would make v₊·n = −v·n, an elastic bounce
 * (the trapezoidal rule conserves energy).
 *
 * The variational scheme takes the explicit schemes' contacts: its step ends with `project`
 * (drift 1: x₊ = x₀ + h v₊, v₊ = 2 res/h) and its momenta get the projection's impulse,
 * p += M Δv (withMomentumImpulse, program-transforms.ts). Constrained solves were tried first, with
 * base = 0, c = 2/h, ι = h/2 and backward Euler's loop: a particle rests at the thickness, but a 12²
 * cloth dropped on a sphere ended 220 of 240 steps at the Newton cap (10; 2 per step without the
 * sphere) and once diverged. Tried again (27 Nov 2026) with its own loop — the solve's unknown is
 * res itself, so z = hT/2 at every iteration, contacts found once before the loop at (q₀, v₀),
 * friction after it on res: single particles rest at the thickness to 1e-9 m, stick at 20° and
 * slide 0.804422 m down 35° (½ a t², exact); a 10² cloth on a sphere (h = 1/60) is stable without
 * friction but with μ = 0.8 its energy grows from 2 J to 1e4 J by step 43. Friction and the
 * constraint change the midpoint velocity v₊ while the end momentum p₊ = M v₊ + (h/2) f keeps the
 * half impulse of the forces they oppose (the consistent one, p₊ = 2 M v₊ − p₀, turns a stopped
 * midpoint into a reversed end momentum); friction on p₊ instead settles that cloth but cannot
 * hold a particle on a 20° slope at μ = 0.5 (res's tangential part (h²/4) f_t/m is free in the
 * solve: a creep of 2.8 cm/s), and friction on res as well makes the cloth diverge again. Projected
 * after the step, a contact is the explicit schemes' (30 Nov 2026, test/implicit-colliders.test.ts):
 * the solve is the free one, so its Newton loop converges as without colliders, and the impulse on
 * p makes the next step start from the projected motion.
 * Newmark carries a₊ into the next step (a ← a₊), but a contact's a₊ holds impulses spread over
 * one step — the constraint's, (T − n·base)/(hγ) along n, and friction's along the surface — not
 * accelerations: carried, a₊·n alternates in sign at a resting contact and flings the particle
 * through the surface once its force releases it (measured: 5.8 cm inside after 2 s), and a₊'s
 * tangential part alternates ±g sin θ on an incline where friction holds it (it crept 0.3 mm in
 * 1 s). So on the step's contacts the carried a is the step's mean acceleration
 * (v₊ − v)/h = (1 − γ) a + γ a₊, without its normal part (`contactFilter` from it): 0 at a resting
 * or sticking contact, g (sin θ − μ cos θ) along a slope it slides down.
 */
import type { IntegratorName } from './catalog.ts';
import { INTEGRATORS } from './catalog.ts';
import { EXPLICIT_INTEGRATORS } from './schemes.ts';
import { ringEntry, type Coefficient, type Op, type Program } from './program.ts';
import { withMomentumImpulse } from './program-transforms.ts';

/**
 * The most iterations a resumed solve (contacts released or slipping within the step, RELEASE_NOW
 * above and static friction's `slip`, src/backends/cpu/contacts.ts) runs: half of the solve's own,
 * 100 at the default 200. What it solves is the released contacts' residual and the slipped ones'
 * tangential forces — the latter nearly a solve again (a 16² cloth collapsing on a floor: resumed
 * solves of up to 31 iterations after solves of 35; a quarter, the cap before static friction,
 * left one unconverged) — and on WebGPU step() encodes every iteration whether it runs or not (a
 * multigrid one is ~20 dispatches). One that stops there is counted unconverged.
 */
export function resumedIterations(maxIterations: number): number {
  return Math.max(1, Math.ceil(maxIterations / 2));
}

/** The vector holding each scheme's `base` where it is not the state's v. */
const BASE = 'contact.base';
/** Newmark's mean acceleration over the step, (v₊ − v)/h = (1 − γ) a + γ a₊. */
const MEAN = 'contact.mean';
/** A Newton loop's filtered residual S G. */
const FILTERED = 'contact.residual';

/**
 * `contacts` and `contactForces` around `solve` (s = solve.to). `detect`: the step finds its
 * contacts here (the single-solve schemes; a Newton loop finds them before it). `release`: contacts
 * whose force clearly pulls are released at once and the solve resumes without them (RELEASE_NOW
 * above), and friction is applied unless a Newton loop applies it after converging.
 */
function constrained(solve: Op, x: string, v: string, base: string, scale: Coefficient, impulse: Coefficient, detect: boolean, release: boolean, moved: string, stick = false): Op[] {
  if (solve.op !== 'solve') return [solve];
  const s = solve.to;
  const forces = { op: 'contactForces', solution: s, rhs: solve.rhs, base, x: moved, scale, impulse } as const;
  const contacts: Op = { op: 'contacts', x, v, solution: s, base, scale, detect, ...(detect && stick ? { stick } : {}) };
  if (!release) return [contacts, solve, { ...forces, friction: false }];
  return [contacts, solve, { ...forces, friction: false, release: true }, { ...solve, resume: true }, { ...forces, friction: detect }];
} // prettier-ignore

/**
 * The Newton loop of `ops` with its contacts found before it and its solves constrained. Caribou's
 * criteria read ‖R‖ of the residual G, which at a contact holds the constraint force, so only
 * ‖δa‖ < tol ‖Σδa‖ could stop a contact's loop, and at a resting contact a and δa are both
 * rounding. The loop measures the constrained residual S G instead; that misses a violated constraint (a particle falling onto a plane has
 * S G = 0 at a = 0, so the i = 0 check would end the loop before any solve), so the first
 * constrained Newton step is taken in `begin`, after which the constraint holds and S G is the
 * whole residual. The loop's count of Newton iterations then leaves that first one out.
 */
function constrainedNewton(ops: readonly Op[], base: string, scale: Coefficient, impulse: Coefficient, stick: boolean): Op[] {
  return ops.map((op): Op => {
    if (op.op !== 'newton') return op;
    const detect: Op = { op: 'contacts', x: 'x', v: 'v', solution: 's', base, scale, detect: true, ...(stick ? { stick } : {}) };
    const constrain = (release: boolean) => (u: Op) => constrained(u, 'x0', 'v0', base, scale, impulse, false, release, 'x0');
    const update = op.update.flatMap(constrain(false));
    const residual = op.residual.flatMap((r): Op[] => r.op !== 'measure' || !r.quantities.residual ? [r] : [
      { op: 'combine', outputs: [{ to: FILTERED, terms: [[1, r.quantities.residual]] }] },
      { op: 'contactFilter', vector: FILTERED },
      { op: 'measure', quantities: { ...r.quantities, residual: FILTERED } },
    ]);
    const first = op.residual.filter((r) => r.op !== 'measure');
    return { ...op, begin: [detect, ...op.begin, ...first, ...op.update.flatMap(constrain(true))], residual, update };
  });
} // prettier-ignore

/**
 * `ops` with friction after each Newton loop, on the converged unknown `solution` (v₊ = base + c ·
 * solution), then `after`. Inside the loop friction would change each iterate by a force its
 * residual does not hold, so a sticking contact's loop could only stop on rounding (measured: 26 of
 * 120 steps of a particle resting on a sphere, μ = 0.5, unconverged).
 */
function frictionAfterNewton(ops: readonly Op[], friction: Extract<Op, { op: 'contactFriction' }>, after: readonly Op[]): Op[] {
  return ops.flatMap((op) => (op.op === 'newton' ? [op, friction, ...after] : [op]));
} // prettier-ignore

/** The step of an implicit `program` with its solves constrained (the coefficients above). */
function implicitStep(program: Program, integrator: IntegratorName): Op[] {
  const step = program.step;
  const stick = program.implicit!.staticFriction;
  if (integrator === 'newmark') {
    const g = program.implicit!.newmarkGamma;
    const base: Op = {
      op: 'combine',
      outputs: [
        {
          to: BASE,
          terms: [
            [1, 'v'],
            [(h) => h * (1 - g), 'a'],
          ],
        },
      ],
    };
    const mean: Op = {
      op: 'combine',
      outputs: [
        {
          to: MEAN,
          terms: [
            [1 - g, 'a'],
            [g, 's'],
          ],
        },
      ],
    };
    const ops = step.flatMap((op) => (op.op === 'solve' ? [base, ...constrained(op, 'x', 'v', BASE, (h) => h * g, (h) => h * g, true, true, 'x', stick), mean] : [op])); // prettier-ignore
    return [...ops, { op: 'contactFilter', vector: 'a', from: MEAN }];
  }
  if (integrator === 'backward-euler') {
    const friction = { op: 'contactFriction', solution: 'a', base: 'v0', x: 'x0', scale: (h: number) => h, impulse: (h: number) => h } as const; // prettier-ignore
    const update: Op = { op: 'combine', outputs: [{ to: 'v', terms: [[1, 'v0'], [(h) => h, 'a']] }, { to: 'x', terms: [[1, 'x0'], [(h) => h, 'v0'], [(h) => h * h, 'a']] }] }; // prettier-ignore
    return frictionAfterNewton(
      constrainedNewton(
        step,
        'v',
        (h) => h,
        (h) => h,
        stick,
      ),
      friction,
      [update],
    );
  }
  return step.flatMap((op) => constrained(op, 'x', 'v', 'v', 1, 1, true, true, 'x', stick));
}

/**
 * The `drift` of a fixed-step integrator's projection (src/integrators/program.ts, `project`):
 * the explicit and multistep schemes' own (src/integrators/schemes.ts), 1 for implicit and
 * backward Euler (x₊ = x + h v₊), β/γ for Newmark (a change of a₊ moves v₊ by hγ and x₊ by h²β).
 */
function fixedStepDrift(program: Program, integrator: IntegratorName): number {
  const record = INTEGRATORS[integrator];
  if ('drift' in record) return record.drift;
  if (integrator === 'newmark') return program.implicit!.newmarkBeta / program.implicit!.newmarkGamma;
  return 1;
}

/**
 * `program` with its contact ops (the model has `colliderCount` colliders; 0: unchanged). An
 * adaptive program's `drift` is its accepted step's (src/integrators/adaptive-programs.ts).
 */
export function withContacts(
  program: Program,
  integrator: IntegratorName,
  colliderCount: number,
  drift = fixedStepDrift(program, integrator),
): Program {
  if (colliderCount === 0) return program;
  if (program.adaptive) {
    // Kinematic colliders (setColliderPose over advanceTo) move by h u with the accepted step h.
    const accept: Op[] = [
      ...program.adaptive.accept,
      { op: 'moveColliders' },
      { op: 'project', x: 'x', v: 'v', drift },
    ];
    return { ...program, adaptive: { ...program.adaptive, accept } };
  }
  // Kinematic colliders move over each step: explicit steps project against the moved pose
  // (the state is at the step's end), implicit solves are constrained at the pose the step starts from.
  const move: Op = { op: 'moveColliders' };
  if (!program.implicit) {
    // A multistep scheme's step ends by pushing F(y₊) onto its history (the first `rotate`); the
    // contact goes before it, so the history holds the projected velocity and the force at the
    // projected position (pushed after, x₊ of Adams–Moulton, the trapezoid and implicit Euler
    // followed a history without friction, and a particle slid up to 1e-4 of its way short down
    // an incline). Where x₊ reads only the history (Adams–Bashforth) a contact is also an event no
    // polynomial through the history sees: without a restart, a resting particle's unprojected
    // v₊ = −g h lifted it g h²/3 off the floor every third step (AB3), and the projected 0 after
    // an impact's −v lifted x₊ = x + h (3/2 v_n − ½ v_{n−1}) ½ g h² every other step (AB2). So the
    // projection restarts the history of the particles it acts on: every Fv entry becomes the
    // projected v₊ (as a multistep code restarts at a discontinuity, on those particles only), and
    // their next x₊ = x + h v₊ (drift 0, as explicit Euler's). The startup steps are RK4's (drift ½).
    const record = INTEGRATORS[integrator];
    const projectedHistory = 'readsEndVelocity' in record && record.readsEndVelocity;
    // (The ring's last entry is the slot the push overwrites.)
    const velocityHistory = Array.from({ length: Math.max(0, (program.rings['Fv'] ?? 0) - 1) }, (_, j) => ringEntry('Fv', j)); // prettier-ignore
    const restart = !projectedHistory && velocityHistory.length > 0 ? { restart: velocityHistory } : {};
    const before = (ops: readonly Op[], d: number): Op[] => {
      const push = ops.findIndex((op) => op.op === 'rotate');
      const at = push < 0 ? ops.length : push;
      return [...ops.slice(0, at), move, { op: 'project', x: 'x', v: 'v', drift: d, ...(d === 0 ? { onSurface: true } : {}), ...restart }, ...ops.slice(at)]; // prettier-ignore
    };
    return { ...program, startup: before(program.startup, EXPLICIT_INTEGRATORS.rk4.drift), step: before(program.step, drift) }; // prettier-ignore
  }
  // A particle the solve leaves free (its free flight under gravity does not reach the surface,
  // or it moves away, or it was released) can still end the step behind a surface: the springs of
  // a collapsing fold pull it in (the drop at 512²: 4.9 cm inside the sphere with implicit Euler
  // before it projected; an 8² cloth dropped on a sphere, 1.85 cm with backward Euler, whose
  // converged steps carry such particles further than one linear step). So what ends behind a
  // surface by more than rounding is projected, as explicit steps are (not the constrained
  // contacts the solve put on it: whether g₊ ≈ 0 rounds below 0 moved a 16² cloth landing on a
  // floor 4 mm apart on the GPU and the CPU, one backend removing their inward velocity −g/h and
  // its friction, the other not).
  if (program.momenta) {
    // The variational scheme: its free step, then the explicit schemes' projection (above).
    const project = withMomentumImpulse([move, { op: 'project', x: 'x', v: 'v', drift }], program.momenta, 'contact');
    return { ...program, step: [...program.step, ...project] };
  } // prettier-ignore
  const after: Op[] = [move, { op: 'project', x: 'x', v: 'v', slack: true, drift }];
  return { ...program, step: [...implicitStep(program, integrator), ...after] };
}
