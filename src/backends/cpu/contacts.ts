/**
 * Contacts with the model's colliders on the CPU (src/model/colliders.ts; the ops `contacts`,
 * `contactForces` and `project` of src/integrators/program.ts).
 *
 * Implicit solves (Baraff & Witkin 1998, "Large steps in cloth simulation", §5.3 and §6): a
 * constraint is needed where the unconstrained motion would violate it, so a free particle i is
 * constrained by a collider on whose surface it is (|g_i| ≤ SURFACE_SLACK (1 + |x|∞): rounding of
 * g = 0, src/model/colliders.ts) or behind (g_i < 0), or whose gap g_i = φ(x_i) − thickness its
 * free flight closes within the step (`reaches`):
 *   g_i + h (v_i − u)·n_i + h² g·n_i < 0,
 * the end-of-step gap g + h (v₊ − u)·n of v₊ = v + h g (gravity alone: every scheme's v₊ in free
 * flight) — the relative *normal* approach, against the surface's velocity u, and gravity's normal
 * component. That is exactly where the constraint's normal velocity T_i (below) is above free
 * flight's, T_i > (v_i + h g)·n_i, so a new contact's constraint force pushes (λ ≥ 0) unless
 * other forces pull the particle in; at its edge the two agree and constraining or not gives the
 * same step. (A particle within h (|v| + max |u|) + h² |g| by its whole speed was constrained
 * before: one sliding fast along a floor 3.7 cm above it was pulled onto it at −gap/h = −8.98 m/s,
 * which its force read as adhesion, released, and the next step ended 3.6 cm behind the floor —
 * reports/design/contact-release-cycle.md.) A contact held in the last solve and not released
 * stays held while its gap to the same collider is within h (|v| + max |u|) + h² |g|: B&W release
 * a constraint by its force alone, and deciding again by v·n would make a resting particle's
 * contact hang on the rounding of v·n ≈ 0 (measured: a 5 × 5 cloth pushed out of a sphere, GPU and
 * CPU 5.8e-3 m apart after 3 steps, when one of them let such a particle go;
 * test/gpu-kinematic-colliders.test.ts). Of these the deepest is the particle's contact, and it is
 * left free if it is on or outside the surface (g ≥ −SURFACE_SLACK (1 + |x|∞): a particle moved
 * onto a surface has g = 0 only up to rounding, float32 positions ~1e-8 m here) and either moves
 * away ((v_i − u)·n_i > RECEDING h |g|, round-off of rest) or its last contact force pulled it
 * inwards (then it is left free for one step). Other forces (springs, damping) are not in the free
 * flight: a particle they carry behind a surface unconstrained is moved onto it by the end-of-step
 * `project` (src/integrators/contact-programs.ts).
 * The particle must end the step with the normal velocity T_i = −max(g_i, 0)/h (it ends on the
 * surface, g + h v₊·n = 0; one already behind it is moved onto it before the position update
 * instead, so that no velocity is made of the penetration). The solve's unknown s, with
 * v₊ = base + c s (src/integrators/contact-programs.ts gives each scheme's base and c; implicit
 * Euler: s = Δv, base = v, c = 1), then has the prescribed normal component z_i = (T_i − base_i·n_i)/c,
 * and CG runs on the filtered system: x₀ = z,
 * r = S (b − A x₀), and S applied to every preconditioned residual and product, S_i = I − n_i n_iᵀ on
 * constrained particles (B&W's modified PCG). After the solve the constraint force is
 * λ_i n_i = ((A s − b)·n_i) n_i (implicit Euler: A Δv = b + h f_c); λ < 0 (adhesion) releases the
 * contact for the next step — unless the particle was behind the surface by more than the slack
 * when λ was taken: its forces were then taken where it was, not on the surface it is moved to
 * (reports/design/contact-release-cycle.md) — and Coulomb friction removes up to μ ι λ_i / m_i
 * of the tangential velocity of v₊ (ι the velocity change per unit λ/m: 1 for implicit Euler)
 * (Bridson, Fedkiw & Anderson 2002 §7.2: the tangential change is bounded by μ × the normal one).
 *
 * Static friction (the `contacts` op's `stick`, option `staticFriction`): a contact on a collider
 * with μ > 0 starts each step sticking, constrained in all three directions (B&W §5.3: S_i = 0,
 * the prescribed s_i = (V_i − base_i)/c with V_i = u + (T_i − u·n_i) n_i, moving with the surface
 * and closing its gap), so the springs of its neighbours see it held inside the solve instead of
 * having its motion taken away after it. Its constraint force is then the whole f_i = (A s − b)_i;
 * where it leaves the friction cone, |f_t| > μ λ (f_t = f − λ n, λ = f·n; λ ≤ 0 is outside), the
 * contact slides: its tangential constraint is dropped, −f_t goes back into the residual, and the
 * solve resumes (the same active-set step as a release), with friction after it as above. A
 * sticking contact that pulls is released within the step only when |f_t| ≤ μ |λ| (else it
 * slides; see `respond`). Sticking is tried every step (README, "Static friction inside the
 * solve": the cost of that, and what was tried instead).
 *
 * Explicit steps: after the step a particle behind a surface (g < 0) is moved onto it, an inward
 * normal velocity v·n < 0 is removed (Δv_n = −v·n), and friction removes up to μ Δv_n of the
 * tangential velocity — the same contact model as a velocity-level impulse.
 *
 * Kinematic colliders (src/backends/common/collider-poses.ts): every velocity above is relative
 * to the surface's, v − u (u of src/model/collider-pose.ts; Bridson et al. 2002 §7.2 work in the
 * collider's frame), so T = u·n − max(g, 0)/h (the particle ends the step on the moved surface,
 * moving with it) and friction drives v₊ towards u. `move` advances the
 * colliders by h u after each step.
 */
import { colliderVelocity } from '../../model/collider-pose.ts';
import {
  colliderDistance,
  FILTER_ROUNDING,
  nearestContact,
  RECEDING_ROUNDING,
  SURFACE_SLACK,
  type ResolvedCollider,
} from '../../model/colliders.ts';
import type { Model } from '../../model/model.ts';
import type { RealArray } from './passes.ts';
import { friction } from './coulomb-friction.ts';

type Vec3 = [number, number, number];
/** A particle's contact: its collider, gap (m), unit normal and the surface's velocity u (m/s). */
type Contact = { collider: number; gap: number; normal: readonly [number, number, number]; u: Vec3 };

export class CpuContacts {
  /** 1 where particle i is constrained in the coming (or last) solve. */
  readonly active: Uint8Array;
  /** Unit contact normals, [3n]. */
  readonly normal: Float64Array;
  /** The normal velocity T_i each constrained particle must end the step with, m/s, [n]. */
  readonly target: Float64Array;
  /**
   * 1 where a constrained particle sticks: held in all three directions (static friction, the
   * `contacts` op's `stick`), S_i = 0 (Baraff & Witkin 1998 §5.3).
   */
  readonly sticking: Uint8Array;
  /** The prescribed part of the next solve's unknown on constrained particles: z_i n_i, or all of it when sticking, [3n]. */
  private readonly prescribed: Float64Array;
  private readonly released: Uint8Array;
  /** The constraint force λ of each contact in the last solve (units of the scheme's b). */
  private readonly force: Float64Array;
  /** The gap of each constrained particle at detection, m. */
  private readonly gap: Float64Array;
  /** The collider of each constrained particle. */
  private readonly colliderOf: Uint32Array;
  /** The colliders at their current poses (kinematic ones move). */
  private readonly colliders: ResolvedCollider[];
  /** Each collider's velocity: u_p (xyz), then u_q (xyz, a capsule's end b), m/s. */
  private readonly motion: Float64Array;
  /** Constrained particles in the last detection (for statistics and tests). */
  count = 0;
  /** Their indices, the first `count` entries. */
  private readonly constrained: Uint32Array;

  constructor(private readonly model: Model) {
    const n = model.particleCount;
    [this.active, this.released, this.sticking] = [new Uint8Array(n), new Uint8Array(n), new Uint8Array(n)];
    [this.normal, this.target, this.prescribed, this.gap, this.force] = [
      new Float64Array(3 * n),
      new Float64Array(n),
      new Float64Array(3 * n),
      new Float64Array(n),
      new Float64Array(n),
    ];
    [this.colliderOf, this.constrained] = [new Uint32Array(n), new Uint32Array(n)];
    this.colliders = [...model.colliders];
    this.motion = new Float64Array(6 * model.colliders.length);
  }

  /** Collider k is at `pose` now and moves at up (its p) and uq (its q). */
  setCollider(k: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void {
    this.colliders[k] = pose;
    this.motion.set(up, 6 * k);
    this.motion.set(uq, 6 * k + 3);
  }

  /** The `moveColliders` op: p += h u_p, q += h u_q. */
  move(h: number): void {
    this.colliders.forEach((c, k) => {
      const u = this.motion.subarray(6 * k, 6 * k + 6);
      if (u.every((x) => x === 0)) return;
      const p: Vec3 = [c.p[0] + h * u[0]!, c.p[1] + h * u[1]!, c.p[2] + h * u[2]!];
      const q: Vec3 = [c.q[0] + h * u[3]!, c.q[1] + h * u[4]!, c.q[2] + h * u[5]!];
      this.colliders[k] = { ...c, p, q };
    });
  }

  /** The largest speed of any collider's p or q, m/s (0 when none moves). */
  private fastest(): number {
    let top = 0;
    for (let j = 0; j < this.motion.length; j += 3)
      top = Math.max(top, Math.hypot(this.motion[j]!, this.motion[j + 1]!, this.motion[j + 2]!));
    return top;
  }

  /** The velocity of collider k's surface nearest x. */
  private surfaceVelocity(k: number, x: RealArray, i: number): Vec3 {
    const u = this.motion;
    const at: Vec3 = [x[i]!, x[i + 1]!, x[i + 2]!];
    return [...colliderVelocity(this.colliders[k]!, at, [u[6 * k]!, u[6 * k + 1]!, u[6 * k + 2]!], [u[6 * k + 3]!, u[6 * k + 4]!, u[6 * k + 5]!])]; // prettier-ignore
  }

  /** The constraints of a solve for Δv at (x, v) and step h; with `stick`, contacts with friction start sticking. */
  detect(x: RealArray, v: RealArray, h: number, stick = false): void {
    const { model } = this;
    const gravity = Math.hypot(...model.gravity);
    // A held contact's reach: one step at the particle's whole speed plus the fastest collider's.
    const fastest = this.fastest();
    const heldReach = (k: number) => h * (Math.hypot(v[k]!, v[k + 1]!, v[k + 2]!) + fastest) + h * h * gravity; // prettier-ignore
    this.count = 0;
    for (let i = 0; i < model.particleCount; i++) {
      const held = this.active[i] === 1 && this.released[i] === 0;
      [this.active[i], this.sticking[i]] = [0, 0];
      if (model.particleInvMass[i] === 0) continue;
      const k = 3 * i;
      const slack = SURFACE_SLACK * (1 + Math.max(Math.abs(x[k]!), Math.abs(x[k + 1]!), Math.abs(x[k + 2]!)));
      const c = this.contactOf(x, v, k, h, slack, held ? this.colliderOf[i]! : -1, held ? heldReach(k) : 0);
      const released = this.released[i];
      this.released[i] = 0;
      this.force[i] = 0;
      if (!c) continue;
      const { u, normal } = c;
      const vn = (v[k]! - u[0]) * normal[0] + (v[k + 1]! - u[1]) * normal[1] + (v[k + 2]! - u[2]) * normal[2];
      if (!held && c.gap >= -slack && (released || vn > RECEDING_ROUNDING * h * gravity)) continue;
      this.active[i] = 1;
      this.sticking[i] = stick && this.colliders[c.collider]!.friction > 0 ? 1 : 0;
      this.normal.set(normal, k);
      this.target[i] = u[0] * normal[0] + u[1] * normal[1] + u[2] * normal[2] - Math.max(c.gap, 0) / h;
      this.gap[i] = c.gap;
      this.colliderOf[i] = c.collider;
      this.constrained[this.count++] = i;
    }
  } // prettier-ignore

  /**
   * The deepest collider particle k/3 at (x, v) touches or is behind (gap ≤ `slack`), or reaches in
   * free flight within the step, g + h ((v − u)·n + h g·n) < 0, or (collider `held`) is within
   * `heldReach` of; null when none.
   */
  private contactOf(x: RealArray, v: RealArray, k: number, h: number, slack: number, held: number, heldReach: number): Contact | null {
    const at: Vec3 = [x[k]!, x[k + 1]!, x[k + 2]!];
    const g = this.model.gravity;
    let best: Contact | null = null;
    this.colliders.forEach((collider, j) => {
      const { distance, normal: n } = colliderDistance(collider, at);
      const gap = distance - collider.thickness;
      if (best && gap >= best.gap) return;
      const u = this.surfaceVelocity(j, x, k);
      const closing = (u[0] - v[k]!) * n[0] + (u[1] - v[k + 1]!) * n[1] + (u[2] - v[k + 2]!) * n[2] - h * (g[0] * n[0] + g[1] * n[1] + g[2] * n[2]); // prettier-ignore
      if (gap <= slack || gap < h * closing || (j === held && gap < heldReach)) best = { collider: j, gap, normal: n, u };
    });
    return best;
  } // prettier-ignore

  /**
   * u ← S u (or S `from`): the normal component removed on constrained particles. A u along n up to rounding
   * (|S u| ≤ FILTER_ROUNDING |u|) becomes 0: a float32 normal is unit only to ~6e-8, so S n is
   * not 0 but 1e-7 n, and CG, whose constrained residual is relative to the first filtered one,
   * would take that rounding for a direction and undo the constraint (measured on the GPU: a
   * particle riding a box mesh up was let fall, 4.3e-3 m in one step).
   */
  filter(u: RealArray, from: RealArray = u): void {
    for (let c = 0; c < this.count; c++) {
      const k = 3 * this.constrained[c]!;
      const w = [from[k]!, from[k + 1]!, from[k + 2]!] as const;
      const un = w[0] * this.normal[k]! + w[1] * this.normal[k + 1]! + w[2] * this.normal[k + 2]!;
      const f = [0, 1, 2].map((d) => w[d]! - un * this.normal[k + d]!);
      const along =
        f[0]! ** 2 + f[1]! ** 2 + f[2]! ** 2 <= FILTER_ROUNDING ** 2 * (w[0] ** 2 + w[1] ** 2 + w[2] ** 2);
      const zero = along || this.sticking[k / 3] === 1;
      for (let d = 0; d < 3; d++) u[k + d] = zero ? 0 : f[d]!;
    }
  }

  /**
   * The next solve's prescribed part for an unknown s with v₊ = base + c s: z_i n_i, z_i =
   * (T_i − n_i·base_i)/c; sticking, all of s_i = (V_i − base_i)/c, V_i = u + (T_i − u·n_i) n_i the
   * surface's velocity u at x with T_i along n_i.
   */
  constrain(base: RealArray, c: number, x: RealArray): void {
    for (let j = 0; j < this.count; j++) {
      const i = this.constrained[j]!;
      const k = 3 * i;
      const n = this.normal;
      const bn = base[k]! * n[k]! + base[k + 1]! * n[k + 1]! + base[k + 2]! * n[k + 2]!;
      const z = (this.target[i]! - bn) / c;
      if (!this.sticking[i]) {
        for (let d = 0; d < 3; d++) this.prescribed[k + d] = z * n[k + d]!;
        continue;
      }
      const u = this.surfaceVelocity(this.colliderOf[i]!, x, k);
      const along = this.target[i]! - (u[0] * n[k]! + u[1] * n[k + 1]! + u[2] * n[k + 2]!);
      for (let d = 0; d < 3; d++) this.prescribed[k + d] = (u[d]! + along * n[k + d]! - base[k + d]!) / c;
    }
  }

  /** x₀: the prescribed parts on constrained particles, 0 elsewhere. */
  start(x: RealArray): void {
    x.fill(0);
    for (let i = 0; i < this.active.length; i++)
      if (this.active[i]) for (let d = 0; d < 3; d++) x[3 * i + d] = this.prescribed[3 * i + d]!;
  }

  /**
   * After the solve (`product` = A s, `b`): keeps each contact's λ = (A s − b)·n and releases adhesive ones (not
   * one whose particle was behind the surface by more than the slack: below), moves
   * particles behind a surface onto it (x) — once: the gap is then 0, so a Newton loop's later
   * iterations do not move them again — and, with `withFriction`, applies friction (below). With
   * `releaseNow` (margin: RELEASE_NOW_FRACTION of src/model/colliders.ts), the contacts released
   * with λ below −margin (|A s·n| + |b·n|) are dropped from this solve's constraints too, their −λ n put
   * back into its residual (r = b − A s, unfiltered there), for the
   * solve to resume without them (contact-programs.ts), and no particle is moved yet: the
   * `respond` after the resumed solve moves them, its λ taken where they were too.
   */
  respond(product: RealArray, b: RealArray, solution: RealArray, base: RealArray, x: RealArray, c: number, impulse: number, withFriction: boolean, releaseNow?: { margin: number; residual: RealArray }): void {
    for (let i = 0; i < this.active.length; i++) {
      if (!this.active[i]) continue;
      const k = 3 * i;
      const n = this.normal.subarray(k, k + 3);
      // Behind by more than rounding (the slack of `detect`'s "on the surface"). A Newton loop sees
      // it at its first iteration only (the gap is 0 after the move); its later iterations take λ
      // at iterates that end on the surface, where λ < 0 is adhesion.
      const behind = this.gap[i]! < -SURFACE_SLACK * (1 + Math.max(Math.abs(x[k]!), Math.abs(x[k + 1]!), Math.abs(x[k + 2]!))); // prettier-ignore
      // Moved after the solve resumes, where a solve resumes (the gap tells `behind` until then).
      if (releaseNow === undefined && this.gap[i]! < 0) for (let d = 0; d < 3; d++) x[k + d] = x[k + d]! - this.gap[i]! * n[d]!; // prettier-ignore
      if (releaseNow === undefined) this.gap[i] = Math.max(this.gap[i]!, 0);
      const [qn, bn] = [product[k]! * n[0]! + product[k + 1]! * n[1]! + product[k + 2]! * n[2]!, b[k]! * n[0]! + b[k + 1]! * n[1]! + b[k + 2]! * n[2]!]; // prettier-ignore
      const lambda = qn - bn;
      this.force[i] = lambda;
      // A particle that was behind the surface had its forces taken where it was, not on the
      // surface it is moved to: its springs may push it out there and pull it in on the surface, so
      // λ < 0 is no adhesion, and releasing it let it fall in again — a period-2 cycle at ~1 m/s
      // on a cloth at a sphere's foot (test/contact-release.test.ts).
      this.released[i] = lambda < 0 && !behind ? 1 : 0;
      // Released now only when its pull is a clear part of its terms (RELEASE_NOW_FRACTION).
      // The solve's residual r = b − A s gets back the normal part the filter took: −λ n.
      // A sticking contact is released here only when its tangential force is small, |f_t| ≤ μ |λ|;
      // else it is made to slide (`slip`): held in all three directions its λ is not the sliding
      // one's (a particle its springs pull along the surface read as adhesive, was let go and fell
      // 2 mm in, every other step: 16² drop), and the sliding solve's λ decides next.
      if (!releaseNow) continue;
      const pulls = this.released[i] === 1 && lambda < -releaseNow.margin * (Math.abs(qn) + Math.abs(bn));
      if (this.sticking[i]) {
        const small = this.slip(i, product, b, lambda, releaseNow.residual) === 'small';
        if (!(pulls && small)) continue;
      }
      if (pulls) {
        this.active[i] = 0;
        for (let d = 0; d < 3; d++) releaseNow.residual[k + d] = releaseNow.residual[k + d]! - lambda * n[d]!;
      }
    }
    if (releaseNow !== undefined) this.count = this.compact();
    if (withFriction) this.friction(solution, base, x, c, impulse);
  } // prettier-ignore

  /**
   * A sticking contact's constraint force f = A s − b outside the friction cone, |f_t| > μ λ
   * (f_t = f − λ n; Coulomb; Bridson, Fedkiw & Anderson 2002 §7.2; λ < 0 is outside): it slides
   * from here on, and the residual gets back the tangential part −f_t the filter took, for the
   * solve to resume with n·s alone constrained (friction, and a release by its λ, after it).
   * 'small': |f_t| ≤ μ |λ|, the tangential constraint carried little (`respond` may release it).
   */
  private slip(i: number, product: RealArray, b: RealArray, lambda: number, residual: RealArray): 'small' | 'large' {
    const k = 3 * i;
    const n = this.normal;
    const tangential = [0, 1, 2].map((d) => product[k + d]! - b[k + d]! - lambda * n[k + d]!);
    const [mu, size] = [this.colliders[this.colliderOf[i]!]!.friction, Math.hypot(...tangential)];
    if (size <= mu * lambda) return 'small';
    this.sticking[i] = 0;
    for (let d = 0; d < 3; d++) residual[k + d] = residual[k + d]! - tangential[d]!;
    return size <= mu * Math.abs(lambda) ? 'small' : 'large';
  } // prettier-ignore

  /** Drops the particles no longer active from the constrained list; its new length. */
  private compact(): number {
    let kept = 0;
    for (let j = 0; j < this.count; j++) {
      const i = this.constrained[j]!;
      if (this.active[i]) this.constrained[kept++] = i;
    }
    return kept;
  }

  /**
   * Coulomb friction of the last constraint forces λ: on v₊ = base + c s, up to μ ι λ / m of the
   * tangential velocity relative to the surface removed, written back into s (`solution`).
   */
  friction(solution: RealArray, base: RealArray, x: RealArray, c: number, impulse: number): void {
    const vNext = new Float64Array(3);
    for (let i = 0; i < this.active.length; i++) {
      const lambda = this.force[i]!;
      if (!this.active[i] || this.sticking[i] || !(lambda > 0)) continue;
      const k = 3 * i;
      const u = this.surfaceVelocity(this.colliderOf[i]!, x, k);
      for (let d = 0; d < 3; d++) vNext[d] = base[k + d]! + c * solution[k + d]!;
      const mu = this.colliders[this.colliderOf[i]!]!.friction;
      friction(vNext, 0, this.normal.subarray(k, k + 3), mu, (impulse * lambda) / this.model.particleMass[i]!, u); // prettier-ignore
      for (let d = 0; d < 3; d++) solution[k + d] = (vNext[d]! - base[k + d]!) / c;
    }
  }

  /**
   * Explicit steps, after a step: particles behind a surface (`reach` 1: or on it to rounding; −1:
   * behind it by more than rounding; program.ts, `project`) moved onto it, inward normal velocity
   * removed, friction; the velocity friction removed is taken back from the step's motion as the
   * scheme carries it (x += carry Δv_t, carry = drift · h). A particle whose velocity changed gets
   * the new one in each of `restart` too (a velocity history restarted: program.ts, `project`).
   */
  project(
    x: RealArray,
    v: RealArray,
    carry: number,
    reach: -1 | 0 | 1 = 0,
    restart: readonly RealArray[] = [],
  ): void {
    const { model } = this;
    const before = new Float64Array(3);
    for (let i = 0; i < model.particleCount; i++) {
      if (model.particleInvMass[i] === 0) continue;
      const k = 3 * i;
      const rounding = SURFACE_SLACK * (1 + Math.max(Math.abs(x[k]!), Math.abs(x[k + 1]!), Math.abs(x[k + 2]!))); // prettier-ignore
      const c = nearestContact(this.colliders, [x[k]!, x[k + 1]!, x[k + 2]!], reach * rounding);
      if (!c) continue;
      const n = c.normal;
      const u = this.surfaceVelocity(c.collider, x, k);
      for (let d = 0; d < 3; d++) x[k + d] = x[k + d]! - c.gap * n[d]!;
      const vn = (v[k]! - u[0]) * n[0] + (v[k + 1]! - u[1]) * n[1] + (v[k + 2]! - u[2]) * n[2];
      if (vn >= 0) continue;
      for (let d = 0; d < 3; d++) v[k + d] = v[k + d]! - vn * n[d]!;
      before.set(v.subarray(k, k + 3));
      friction(v, k, n, this.colliders[c.collider]!.friction, -vn, u);
      for (let d = 0; d < 3; d++) x[k + d] = x[k + d]! + carry * (v[k + d]! - before[d]!);
      for (const history of restart) for (let d = 0; d < 3; d++) history[k + d] = v[k + d]!;
    }
  }
}
