/**
 * Dihedral-angle bending (issue 13 item 3): an energy on the angle between the two triangles of
 * every interior edge (a hinge), the alternative to bend springs. The CPU reference of
 * shaders/bending-hinges.wgsl.
 *
 * Energy (discrete shells, Grinspun, Hirani, Desbrun & Schröder 2003, "Discrete shells", SCA,
 * eq. 4: Σ_e (θ_e − θ̄_e)² ‖ē‖ / h̄_e, h̄_e a third of the mean of the two triangles' heights over
 * e, so ‖ē‖ / h̄_e = 3 ‖ē‖² / (Ā₁ + Ā₂)), with a stiffness k_B (J) per hinge:
 *
 *   E = Σ_h k_h c_h (θ_h − θ₀_h)²,   c_h = 3 ‖ē‖² / (Ā₁ + Ā₂)   (rest edge length and areas),
 *
 * and a dissipation D = ½ Σ_h d_h c_h θ̇_h² (d_B in J·s), so that the force on particle j is
 *
 *   f_j = −(2 k c (θ − θ₀) + d c θ̇) ∇_j θ,   θ̇ = Σ_l ∇_l θ · v_l.
 *
 * The angle and its gradient (Bridson, Marino & Fedkiw 2003, "Simulation of clothing with folds
 * and wrinkles", SCA, §4.1): a hinge is its edge x₀x₁ and the opposite vertices x₂ (first
 * triangle) and x₃ (second). With e = x₁ − x₀, n₁ = e × (x₂ − x₀), n₂ = (x₃ − x₀) × e (both
 * unnormalised, so that a flat hinge has n₁ ∥ n₂ whatever the triangles' winding),
 *
 *   θ = atan2((n₁ × n₂)·ê, n₁·n₂)            (0 when flat, signed, in (−π, π]),
 *   ∇₂θ = −‖e‖ n₁ / ‖n₁‖²,   ∇₃θ = −‖e‖ n₂ / ‖n₂‖²     (1 / height, along the normal),
 *   ∇₀θ = −(1 − s₂) ∇₂θ − (1 − s₃) ∇₃θ,   ∇₁θ = −s₂ ∇₂θ − s₃ ∇₃θ,   s_k = (x_k − x₀)·e / ‖e‖²,
 *
 * Bridson's u₁…u₄ with his x₃, x₄ = our x₀, x₁ (his u₃ = ((x₁ − x₄)·E/‖E‖) N₁/‖N₁‖² + … is our
 * (s₂ − 1) ∇₂θ). The sign of ∇θ follows from our θ's (checked against finite differences in
 * test/bending.test.ts). NVIDIA Warp's eval_bending (warp/sim/integrator_euler.py, newer versions)
 * normalises n₁, n₂ before forming d₁ = −n̂₁ ‖e‖: its d's are Bridson's directions times 2A, not
 * ∇θ (older versions, with n / ‖n‖², agree with the formulas above).
 *
 * The difference θ − θ₀ is wrapped into [−π, π), so a rest angle near ±π does not jump by 2π.
 * A hinge with a degenerate triangle (‖n‖ = 0) or edge exerts no force, as a spring of length 0.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

/** Dihedral bending of a model's triangles (ModelDescription.bending, withBending). */
export interface Bending {
  /** k_B, J (N·m): one value, or one per hinge in {@link meshHinges} order. Must be ≥ 0. */
  readonly stiffness: number | ArrayLike<number>;
  /** d_B, J·s: one value or one per hinge. Default 0. Must be ≥ 0. */
  readonly damping?: number | ArrayLike<number>;
  /**
   * θ₀, rad: 'initial' (the model's initial positions, default), 'flat' (0 everywhere), or one
   * per hinge in (−π, π].
   */
  readonly restAngles?: 'initial' | 'flat' | ArrayLike<number>;
}

/** Bending with every hinge resolved (Model.bending). Struct of arrays over h hinges. */
export interface ResolvedBending {
  /** h, number of hinges (interior edges shared by exactly two triangles). */
  readonly hingeCount: number;
  /** Four per hinge, 4h in all: x₀, x₁ (the edge), x₂ (the first triangle's opposite), x₃ (the second's). */
  readonly hingeIndices: Uint32Array;
  /** θ₀, [h], rad. */
  readonly hingeRestAngle: Float64Array;
  /** k_h c_h, [h], J: E = Σ k c (θ − θ₀)². */
  readonly hingeStiffness: Float64Array;
  /** d_h c_h, [h], J·s: the dissipation ½ Σ d c θ̇². */
  readonly hingeDamping: Float64Array;
}

/**
 * The hinges of a triangle list: for every edge that exactly two triangles share, in order of the
 * edge's first appearance, [x₀, x₁, x₂, x₃] (x₀x₁ the edge as the first triangle has it).
 * Edges with one triangle (boundary) or more than two (non-manifold) make no hinge.
 */
export function meshHinges(triangles: ArrayLike<number>, particleCount: number): Uint32Array {
  const key = (a: number, b: number): number => (a < b ? a * particleCount + b : b * particleCount + a);
  const edges = new Map<number, number[]>();
  for (let t = 0; 3 * t < triangles.length; t++)
    for (let corner = 0; corner < 3; corner++) {
      const a = triangles[3 * t + corner]!;
      const b = triangles[3 * t + ((corner + 1) % 3)]!;
      const list = edges.get(key(a, b));
      const entry = [a, b, triangles[3 * t + ((corner + 2) % 3)]!];
      if (list) list.push(...entry);
      else edges.set(key(a, b), entry);
    }
  const hinges: number[] = [];
  for (const list of edges.values())
    if (list.length === 6) hinges.push(list[0]!, list[1]!, list[2]!, list[5]!);
  return Uint32Array.from(hinges);
}

type Vec3 = [number, number, number];
const sub = (x: ArrayLike<number>, i: number, j: number): Vec3 => [x[3 * i]! - x[3 * j]!, x[3 * i + 1]! - x[3 * j + 1]!, x[3 * i + 2]! - x[3 * j + 2]!]; // prettier-ignore
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/**
 * θ of hinge (i0, i1, i2, i3) at positions x, and ∇θ into `gradient` [12] from `at` (∇₀θ, ∇₁θ,
 * ∇₂θ, ∇₃θ); θ = 0 and ∇θ = 0 for a degenerate hinge. Scalar arithmetic only: no allocation per
 * hinge (it runs for every hinge at every evaluation).
 */
export function hingeAngle(
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  gradient?: { [k: number]: number },
  at = 0,
): number {
  // Plain scalars (no destructuring): twice as fast in V8 as the same with array literals.
  const a = 3 * i0;
  const b = 3 * i1;
  const c = 3 * i2;
  const d = 3 * i3;
  const x0 = x[a]!;
  const y0 = x[a + 1]!;
  const z0 = x[a + 2]!;
  const ex = x[b]! - x0; // e = x₁ − x₀
  const ey = x[b + 1]! - y0;
  const ez = x[b + 2]! - z0;
  const px = x[c]! - x0; // x₂ − x₀
  const py = x[c + 1]! - y0;
  const pz = x[c + 2]! - z0;
  const qx = x[d]! - x0; // x₃ − x₀
  const qy = x[d + 1]! - y0;
  const qz = x[d + 2]! - z0;
  const n1x = ey * pz - ez * py; // n₁ = e × (x₂ − x₀)
  const n1y = ez * px - ex * pz;
  const n1z = ex * py - ey * px;
  const n2x = qy * ez - qz * ey; // n₂ = (x₃ − x₀) × e
  const n2y = qz * ex - qx * ez;
  const n2z = qx * ey - qy * ex;
  const ee = ex * ex + ey * ey + ez * ez;
  const nn1 = n1x * n1x + n1y * n1y + n1z * n1z;
  const nn2 = n2x * n2x + n2y * n2y + n2z * n2z;
  if (!(ee > 0 && nn1 > 0 && nn2 > 0)) {
    if (gradient) for (let k = 0; k < 12; k++) gradient[at + k] = 0;
    return 0;
  }
  const length = Math.sqrt(ee);
  // (n₁ × n₂)·ê and n₁·n₂
  const sine = ((n1y * n2z - n1z * n2y) * ex + (n1z * n2x - n1x * n2z) * ey + (n1x * n2y - n1y * n2x) * ez) / length; // prettier-ignore
  const theta = Math.atan2(sine, n1x * n2x + n1y * n2y + n1z * n2z);
  if (!gradient) return theta;
  const s2 = (px * ex + py * ey + pz * ez) / ee;
  const s3 = (qx * ex + qy * ey + qz * ez) / ee;
  const w1 = -length / nn1; // ∇₂θ = w₁ n₁
  const w2 = -length / nn2; // ∇₃θ = w₂ n₂
  const a0 = -(1 - s2) * w1; // ∇₀θ = a₀ n₁ + b₀ n₂
  const b0 = -(1 - s3) * w2;
  const a1 = -s2 * w1; // ∇₁θ = a₁ n₁ + b₁ n₂
  const b1 = -s3 * w2;
  gradient[at] = a0 * n1x + b0 * n2x;
  gradient[at + 1] = a0 * n1y + b0 * n2y;
  gradient[at + 2] = a0 * n1z + b0 * n2z;
  gradient[at + 3] = a1 * n1x + b1 * n2x;
  gradient[at + 4] = a1 * n1y + b1 * n2y;
  gradient[at + 5] = a1 * n1z + b1 * n2z;
  gradient[at + 6] = w1 * n1x;
  gradient[at + 7] = w1 * n1y;
  gradient[at + 8] = w1 * n1z;
  gradient[at + 9] = w2 * n2x;
  gradient[at + 10] = w2 * n2y;
  gradient[at + 11] = w2 * n2z;
  return theta;
}

/** θ − θ₀ wrapped into [−π, π). */
export function angleDifference(theta: number, rest: number): number {
  const d = theta - rest;
  return d - 2 * Math.PI * Math.floor((d + Math.PI) / (2 * Math.PI));
}

/** The bending energy E = Σ k c (θ − θ₀)² at positions x, J. */
export function bendingEnergy(bending: ResolvedBending, x: ArrayLike<number>): number {
  const { hingeIndices: I, hingeRestAngle, hingeStiffness } = bending;
  let energy = 0;
  for (let h = 0; h < bending.hingeCount; h++) {
    const d = angleDifference(hingeAngle(x, I[4 * h]!, I[4 * h + 1]!, I[4 * h + 2]!, I[4 * h + 3]!), hingeRestAngle[h]!); // prettier-ignore
    energy += hingeStiffness[h]! * d * d;
  }
  return energy;
}

/** One number or one per hinge, finite and ≥ 0. */
function perHinge(field: string, value: unknown, count: number): Float64Array {
  const list = typeof value === 'number' ? new Float64Array(count).fill(value) : value;
  const length = (list as { length?: unknown } | null)?.length;
  if (typeof list !== 'object' || list === null || typeof length !== 'number')
    throw new WeftInputError(field, `must be a number or an array of numbers (one per hinge), got ${describeValue(value)}`); // prettier-ignore
  if (length !== count)
    throw new WeftInputError(field, `must have ${count} entries (one per hinge), got ${length}`);
  const out = Float64Array.from(list as ArrayLike<number>);
  out.forEach((k, h) => {
    if (!Number.isFinite(k) || k < 0) throw new WeftInputError(`${field}[${h}]`, `must be a finite number ≥ 0, got ${describeValue((list as ArrayLike<unknown>)[h])}`); // prettier-ignore
  });
  return out;
}

/**
 * Validates `value` (fields named `bending.…`) and resolves it on the hinges of `triangles`, the
 * rest geometry (‖ē‖, Ā, and θ₀ with 'initial') from `positions`.
 */
export function resolveBending(value: unknown, triangles: Uint32Array, positions: ArrayLike<number>): ResolvedBending {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WeftInputError('bending', `must be an object { stiffness, damping?, restAngles? }, got ${describeValue(value)}`); // prettier-ignore
  const { stiffness, damping = 0, restAngles = 'initial', ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new WeftInputError(`bending.${unknown}`, 'unknown field (bending has stiffness, damping and restAngles)'); // prettier-ignore
  if (triangles.length === 0) throw new WeftInputError('bending', 'acts on the hinges between triangles, and the model has none (give `triangles`, or build the model with buildCloth or meshToModel)'); // prettier-ignore
  const n = positions.length / 3;
  const hingeIndices = meshHinges(triangles, n);
  const count = hingeIndices.length / 4;
  if (stiffness === undefined) throw new WeftInputError('bending.stiffness', 'missing: a number (J) or one per hinge');
  const k = perHinge('bending.stiffness', stiffness, count);
  const d = perHinge('bending.damping', damping, count);
  const hingeRestAngle = new Float64Array(count);
  if (restAngles !== 'flat' && restAngles !== 'initial') {
    const list = perHingeAngles(restAngles, count);
    hingeRestAngle.set(list);
  }
  const coefficient = new Float64Array(count);
  for (let h = 0; h < count; h++) {
    const [i0, i1, i2, i3] = [0, 1, 2, 3].map((c) => hingeIndices[4 * h + c]!) as [number, number, number, number]; // prettier-ignore
    const e = sub(positions, i1, i0);
    const twiceAreas = Math.hypot(...cross(e, sub(positions, i2, i0))) + Math.hypot(...cross(sub(positions, i3, i0), e)); // prettier-ignore
    if (!(twiceAreas > 0)) throw new WeftInputError('bending', `hinge ${h} (edge ${i0}–${i1}) has triangles of zero area at rest`); // prettier-ignore
    coefficient[h] = (6 * dot(e, e)) / twiceAreas; // 3 ‖ē‖² / (Ā₁ + Ā₂)
    if (restAngles === 'initial') hingeRestAngle[h] = hingeAngle(positions, i0, i1, i2, i3);
  }
  return {
    hingeCount: count,
    hingeIndices,
    hingeRestAngle,
    hingeStiffness: k.map((kh, h) => kh * coefficient[h]!),
    hingeDamping: d.map((dh, h) => dh * coefficient[h]!),
  };
} // prettier-ignore

function perHingeAngles(value: unknown, count: number): Float64Array {
  const length = (value as { length?: unknown } | null)?.length;
  if (typeof value !== 'object' || value === null || typeof length !== 'number')
    throw new WeftInputError('bending.restAngles', `must be 'initial', 'flat' or an array of angles (rad, one per hinge), got ${describeValue(value)}`); // prettier-ignore
  if (length !== count) throw new WeftInputError('bending.restAngles', `must have ${count} entries (one per hinge), got ${length}`); // prettier-ignore
  const list = value as ArrayLike<unknown>;
  for (let h = 0; h < count; h++) {
    const a = list[h];
    if (typeof a !== 'number' || !(a > -Math.PI && a <= Math.PI))
      throw new WeftInputError(`bending.restAngles[${h}]`, `must be an angle in (−π, π], got ${describeValue(a)}`); // prettier-ignore
  }
  return Float64Array.from(list as ArrayLike<number>);
}
