/**
 * Colliders: analytic shapes the cloth cannot pass through (issue 13), as signed distances φ(x)
 * with outward unit normals n = ∇φ (the standard closed forms, e.g. Quílez's distance functions;
 * a box's interior distance is its nearest face). The CPU functions here are the reference of
 * shaders/colliders.wgsl (src/backends/webgpu/contact-ops.ts writes them by the reflected layout).
 *
 * A particle is in contact when φ(x) < thickness; each collider has its Coulomb friction
 * coefficient μ (tangential slip stops when |v_t| ≤ μ × the normal velocity change the contact
 * made, Bridson, Fedkiw & Anderson 2002 §7.2).
 */
import { describeValue, WeftInputError } from '../core/errors.ts';
import { buildMeshBvh, meshDistance, type MeshBvh } from './mesh-collider.ts';

type Vec3 = readonly [number, number, number];

/** What every collider has: its friction and thickness. */
export interface ColliderSurface {
  /** Coulomb friction coefficient μ ≥ 0. Default 0.5. */
  readonly friction?: number;
  /** Contact distance, m: particles are kept at least this far outside the shape. Default 0.005. */
  readonly thickness?: number;
}

/** A half-space {x : (x − point)·normal < 0} is solid. */
export interface PlaneCollider extends ColliderSurface {
  readonly shape: 'plane';
  readonly point: readonly [number, number, number];
  /** Outward normal (need not be unit length). */
  readonly normal: readonly [number, number, number];
}

/** A solid ball. */
export interface SphereCollider extends ColliderSurface {
  readonly shape: 'sphere';
  readonly center: readonly [number, number, number];
  /** m, > 0 */
  readonly radius: number;
}

/** The points within `radius` of the segment a–b. */
export interface CapsuleCollider extends ColliderSurface {
  readonly shape: 'capsule';
  readonly a: readonly [number, number, number];
  readonly b: readonly [number, number, number];
  /** m, > 0 */
  readonly radius: number;
}

/** A solid axis-aligned box: its centre and half extents. */
export interface BoxCollider extends ColliderSurface {
  readonly shape: 'box';
  readonly center: readonly [number, number, number];
  /** m, each > 0 */
  readonly halfExtents: readonly [number, number, number];
}

/**
 * A solid triangle mesh (src/model/mesh-collider.ts: a bounding-volume hierarchy is built once
 * and searched per particle; inside and outside by angle-weighted pseudonormals). Triangles wind
 * counter-clockwise seen from outside; an open mesh's front is the side its normals face.
 */
export interface MeshCollider extends ColliderSurface {
  readonly shape: 'mesh';
  /** Vertex positions, xyz interleaved, m (in the mesh's frame: `offset` places it). */
  readonly vertices: ArrayLike<number>;
  /** Vertex indices, three a triangle; no triangle degenerate. */
  readonly triangles: ArrayLike<number>;
  /** Where the mesh's origin is, m. Default [0, 0, 0]; kinematic meshes translate (pose `offset`). */
  readonly offset?: readonly [number, number, number];
}

/** A static collider of the model. */
export type Collider = PlaneCollider | SphereCollider | CapsuleCollider | BoxCollider | MeshCollider;

/** The shape codes shaders/colliders.wgsl switches on. */
export const COLLIDER_SHAPES = { plane: 0, sphere: 1, capsule: 2, box: 3, mesh: 4 } as const;

/** Defaults of the optional fields. */
export const COLLIDER_DEFAULTS = { friction: 0.5, thickness: 0.005 } as const;

/** A collider with every field present and normals unit length. */
export interface ResolvedCollider {
  readonly shape: Collider['shape'];
  /** plane: point; sphere, box: center; capsule: a; mesh: offset. */
  readonly p: readonly [number, number, number];
  /** plane: unit normal; capsule: b; box: half extents; sphere: unused. */
  readonly q: readonly [number, number, number];
  /** sphere, capsule: radius; else 0. */
  readonly radius: number;
  readonly friction: number;
  readonly thickness: number;
  /** mesh: its hierarchy and triangles. */
  readonly mesh?: MeshBvh;
}

function vec3(value: unknown, field: string): Vec3 {
  if (!Array.isArray(value) || value.length !== 3 || !value.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new WeftInputError(field, `must be three finite numbers [x, y, z], got ${describeValue(value)}`);
  return [value[0], value[1], value[2]];
} // prettier-ignore

function positive(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new WeftInputError(field, `must be a finite number > 0, got ${describeValue(value)}`);
  return value;
}

function nonNegative(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new WeftInputError(field, `must be a finite number ≥ 0, got ${describeValue(value)}`);
  return value;
}

/** Validates one collider description (fields named `colliders[k].…`) and resolves its defaults. */
export function resolveCollider(c: unknown, k: number): ResolvedCollider {
  const at = `colliders[${k}]`;
  if (typeof c !== 'object' || c === null) throw new WeftInputError(at, `must be an object, got ${describeValue(c)}`);
  const o = c as Record<string, unknown>;
  const surface = { friction: nonNegative(o['friction'], COLLIDER_DEFAULTS.friction, `${at}.friction`), thickness: nonNegative(o['thickness'], COLLIDER_DEFAULTS.thickness, `${at}.thickness`) }; // prettier-ignore
  switch (o['shape']) {
    case 'plane': {
      const n = vec3(o['normal'], `${at}.normal`);
      const length = Math.hypot(...n);
      if (!(length > 0)) throw new WeftInputError(`${at}.normal`, 'must not be the zero vector');
      return { shape: 'plane', p: vec3(o['point'], `${at}.point`), q: [n[0] / length, n[1] / length, n[2] / length], radius: 0, ...surface }; // prettier-ignore
    }
    case 'sphere':
      return { shape: 'sphere', p: vec3(o['center'], `${at}.center`), q: [0, 0, 0], radius: positive(o['radius'], `${at}.radius`), ...surface }; // prettier-ignore
    case 'capsule':
      return { shape: 'capsule', p: vec3(o['a'], `${at}.a`), q: vec3(o['b'], `${at}.b`), radius: positive(o['radius'], `${at}.radius`), ...surface }; // prettier-ignore
    case 'box': {
      const h = vec3(o['halfExtents'], `${at}.halfExtents`);
      h.forEach((x, d) => positive(x, `${at}.halfExtents[${d}]`));
      return { shape: 'box', p: vec3(o['center'], `${at}.center`), q: h, radius: 0, ...surface };
    }
    case 'mesh': {
      if (o['obj'] !== undefined) throw new WeftInputError(`${at}.obj`, "is read by the CLI (weft run scene.json); the library takes vertices and triangles (loadObj reads an OBJ's text)"); // prettier-ignore
      const mesh = buildMeshBvh(o['vertices'], o['triangles'], at);
      const offset = o['offset'] === undefined ? ([0, 0, 0] as const) : vec3(o['offset'], `${at}.offset`);
      return { shape: 'mesh', p: offset, q: [0, 0, 0], radius: 0, ...surface, mesh };
    }
    default:
      throw new WeftInputError(`${at}.shape`, `must be 'plane', 'sphere', 'capsule', 'box' or 'mesh', got ${describeValue(o['shape'])}`); // prettier-ignore
  }
} // prettier-ignore

/** Signed distance φ and outward unit normal n of one collider at x. */
export function colliderDistance(c: ResolvedCollider, x: Vec3): { distance: number; normal: Vec3 } {
  const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const unit = (a: Vec3, fallback: Vec3): Vec3 => {
    const l = Math.hypot(...a);
    return l > 0 ? [a[0] / l, a[1] / l, a[2] / l] : fallback;
  };
  switch (c.shape) {
    case 'plane':
      return { distance: dot(sub(x, c.p), c.q), normal: c.q };
    case 'sphere': {
      const d = sub(x, c.p);
      return { distance: Math.hypot(...d) - c.radius, normal: unit(d, [0, 1, 0]) };
    }
    case 'capsule': {
      // Closest point of the segment: a + t (b − a), t = clamp((x − a)·(b − a) / |b − a|², 0, 1).
      const ab = sub(c.q, c.p);
      const t = Math.min(1, Math.max(0, dot(sub(x, c.p), ab) / Math.max(dot(ab, ab), 1e-300)));
      const d = sub(x, [c.p[0] + t * ab[0], c.p[1] + t * ab[1], c.p[2] + t * ab[2]]);
      return { distance: Math.hypot(...d) - c.radius, normal: unit(d, [0, 1, 0]) };
    }
    case 'box': {
      const local = sub(x, c.p);
      const q: Vec3 = [Math.abs(local[0]) - c.q[0], Math.abs(local[1]) - c.q[1], Math.abs(local[2]) - c.q[2]];
      const sign = (d: number): number => (local[d]! < 0 ? -1 : 1);
      const inside = Math.max(...q);
      if (inside <= 0) {
        // Inside: the nearest face, its outward normal.
        const d = q.indexOf(inside);
        return { distance: inside, normal: [d === 0 ? sign(0) : 0, d === 1 ? sign(1) : 0, d === 2 ? sign(2) : 0] };
      }
      const out: Vec3 = [Math.max(q[0], 0) * sign(0), Math.max(q[1], 0) * sign(1), Math.max(q[2], 0) * sign(2)];
      return { distance: Math.hypot(...out), normal: unit(out, [0, 1, 0]) };
    }
    case 'mesh':
      return meshDistance(c.mesh!, sub(x, c.p));
  }
} // prettier-ignore

/**
 * Relative slack of "on the surface", m per m of a particle's largest coordinate (plus 1 m): gaps
 * above −SURFACE_SLACK (1 + |x|∞) are rounding, not penetration, when contacts decide whether a
 * particle is behind a surface (src/backends/cpu/contacts.ts, shaders/contact-detect.wgsl).
 */
export const SURFACE_SLACK = 1e-6;

/**
 * A particle on or outside a surface moves away from it when its normal velocity relative to the
 * surface exceeds RECEDING_ROUNDING h |g| (m/s; h the step, |g| gravity's magnitude): below that it
 * is round-off of rest, and a new contact holds it (src/backends/cpu/contacts.ts,
 * shaders/contact-detect.wgsl).
 */
export const RECEDING_ROUNDING = 1e-6;

/**
 * A contact whose force pulls (λ = (A s − b)·n < 0) leaves its solve at once, and the solve
 * resumes without it, when λ < −RELEASE_NOW_FRACTION (|A s·n| + |b·n|): its pull is a clear part of
 * the terms it is the difference of (a particle held 2 mm above a surface by its springs has
 * b·n ≈ 0, a fraction of 1). Below that the contact is held this step and released for the next
 * (Baraff & Witkin 1998 §6), as all were before: releasing contacts whose force is a small part of
 * their terms made the outcome turn on rounding (an 8² cloth on a mesh sphere, 0.5 s: runs whose
 * start differed by 3e-8 m ended up to 4e-4 m apart with the fraction at the solve's tolerance,
 * 1e-5 m with 0.05 or 0.3, 1e-6 m releasing none within the step; src/integrators/contact-programs.ts).
 */
export const RELEASE_NOW_FRACTION = 0.05;

/**
 * A vector whose part across a contact normal is at most this fraction of it lies along the normal
 * (rounding: float32's ε is 6e-8), and the contact filter S gives 0 for it (src/backends/cpu/contacts.ts;
 * shaders/implicit-common.wgsl and contact-filter.wgsl hold its square, FILTER_ROUNDING2).
 */
export const FILTER_ROUNDING = 1e-6;

/**
 * The contact of a point with a set of colliders: the one whose surface (offset by its thickness)
 * the point is deepest behind — gap = φ − thickness, most negative first — among those with a
 * gap below `reach` (0: only points behind a surface); null when there is none.
 */
export function nearestContact(colliders: readonly ResolvedCollider[], x: Vec3, reach: number): { collider: number; gap: number; normal: Vec3 } | null {
  let best: { collider: number; gap: number; normal: Vec3 } | null = null;
  colliders.forEach((c, k) => {
    const { distance, normal } = colliderDistance(c, x);
    const gap = distance - c.thickness;
    if (gap < reach && (!best || gap < best.gap)) best = { collider: k, gap, normal };
  });
  return best;
} // prettier-ignore
