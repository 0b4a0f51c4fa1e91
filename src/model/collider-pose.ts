/**
 * Kinematic colliders (issue 13): a new pose of a collider, which an app sets between calls of a
 * fixed-step simulation ({@link ColliderPose}), and the velocity of a moving collider's surface,
 * which the contact response uses (a particle resting on a collider moves with it, and friction
 * acts on the velocity relative to the surface: Bridson, Fedkiw & Anderson 2002 §7.2 write the
 * contact and friction in the colliding object's frame, v_rel = v − v_collider).
 */
import { describeValue, WeftInputError } from '../core/errors.ts';
import type { ResolvedCollider } from './colliders.ts';

type Vec3 = readonly [number, number, number];

/**
 * Where a collider is: the fields of its shape that place it (sizes, friction and thickness stay
 * as the model gave them). Plane: `point` and/or `normal`; sphere and box: `center`; capsule: `a`
 * and/or `b`; mesh: `offset`. A field left out keeps its current value. Metres.
 */
export interface ColliderPose {
  /** Sphere, box: the centre. */
  readonly center?: readonly [number, number, number];
  /** Capsule: one end of its segment. */
  readonly a?: readonly [number, number, number];
  /** Capsule: the other end. */
  readonly b?: readonly [number, number, number];
  /** Plane: a point on it. */
  readonly point?: readonly [number, number, number];
  /** Plane: its outward normal (need not be unit length; not the zero vector). */
  readonly normal?: readonly [number, number, number];
  /** Mesh: where its origin is (it translates; it does not turn). */
  readonly offset?: readonly [number, number, number];
}

/** The pose fields of each shape: [field, which of p/q it sets]. */
const POSE_FIELDS: Record<ResolvedCollider['shape'], readonly (readonly [keyof ColliderPose, 'p' | 'q'])[]> = {
  plane: [['point', 'p'], ['normal', 'q']],
  sphere: [['center', 'p']],
  box: [['center', 'p']],
  capsule: [['a', 'p'], ['b', 'q']],
  mesh: [['offset', 'p']],
}; // prettier-ignore

function finiteVec3(value: unknown, field: string): Vec3 {
  if (!Array.isArray(value) || value.length !== 3)
    throw new WeftInputError(field, `must be three finite numbers [x, y, z], got ${describeValue(value)}`);
  value.forEach((x, d) => {
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new WeftInputError(`${field}[${d}]`, `must be a finite number, got ${describeValue(x)}`);
  });
  return [value[0], value[1], value[2]];
}

/**
 * Validates `index` (of `colliders`) and `pose` — errors name `index` or `pose.<field>[d]` — and
 * returns the collider at its new pose (a plane's normal made unit length).
 */
export function posedCollider(colliders: readonly ResolvedCollider[], index: unknown, pose: unknown): ResolvedCollider {
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= colliders.length)
    throw new WeftInputError('index', colliders.length === 0 ? `the model has no colliders, got index ${describeValue(index)}` : `collider index ${describeValue(index)} is out of range [0, ${colliders.length - 1}]`); // prettier-ignore
  if (typeof pose !== 'object' || pose === null || Array.isArray(pose))
    throw new WeftInputError('pose', `must be an object, got ${describeValue(pose)}`);
  const c = colliders[index]!;
  const fields = POSE_FIELDS[c.shape];
  const next = { p: c.p, q: c.q };
  for (const [key, value] of Object.entries(pose)) {
    const found = fields.find(([name]) => name === key);
    if (!found)
      throw new WeftInputError(`pose.${key}`, `is not a pose field of collider ${index}, a ${c.shape} (its pose fields: ${fields.map(([n]) => n).join(', ')})`); // prettier-ignore
    if (value === undefined) continue;
    next[found[1]] = finiteVec3(value, `pose.${key}`);
  }
  if (c.shape === 'plane') {
    const length = Math.hypot(...next.q);
    if (!(length > 0) || !Number.isFinite(length)) throw new WeftInputError('pose.normal', 'must not be the zero vector');
    next.q = [next.q[0] / length, next.q[1] / length, next.q[2] / length];
  }
  return { ...c, p: next.p, q: next.q };
} // prettier-ignore

/**
 * The velocity, m/s, of the surface point of collider `c` nearest x, when its p moves at `up` and
 * its q at `uq` (q moves only for a capsule, whose end b it is): a capsule's point on its segment
 * a + t (b − a) moves at (1 − t) u_a + t u_b; every other shape translates rigidly at u_p.
 */
export function colliderVelocity(c: ResolvedCollider, x: Vec3, up: Vec3, uq: Vec3): Vec3 {
  if (c.shape !== 'capsule') return up;
  const ab = [c.q[0] - c.p[0], c.q[1] - c.p[1], c.q[2] - c.p[2]] as const;
  const ax = [x[0] - c.p[0], x[1] - c.p[1], x[2] - c.p[2]] as const;
  const t = Math.min(1, Math.max(0, (ax[0] * ab[0] + ax[1] * ab[1] + ax[2] * ab[2]) / Math.max(ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2], 1e-300))); // prettier-ignore
  return [(1 - t) * up[0] + t * uq[0], (1 - t) * up[1] + t * uq[1], (1 - t) * up[2] + t * uq[2]];
}
