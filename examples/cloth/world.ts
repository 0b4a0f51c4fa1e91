/**
 * The demo's library scenes: what Weft itself does, with no pass of the demo's own — a flag on a
 * pole in Weft's wind (drag and lift on its triangles, src/model/wind.ts), and the square draped
 * over a "character" of capsules (Weft's colliders, src/model/colliders.ts) that sways from side
 * to side and swings an arm, moved each substep by setColliderPose. Its head is a triangle mesh
 * (an icosphere of 1,280 triangles, Weft's mesh collider: a hierarchy searched per particle) that
 * moves by its `offset`; it is drawn as the sphere it approximates (within 1 mm). A floor plane
 * under both.
 */
import { withColliders, withWind, type Collider, type ColliderPose, type Model } from '../../src/index.ts';
import { icosphere } from './icosphere.ts';

type Vec3 = [number, number, number];

/** Distance the cloth keeps from the colliders, m, and their friction. */
const THICKNESS = 0.012;
const FRICTION = 0.6;
/** The wind's direction (unit) in the flag scene: along the flag, a little across it. */
const FLAG_WIND = [1, 0, 0.25].map((c) => c / Math.hypot(1, 0, 0.25)) as Vec3;
/** The character's sway, m and s, and its arm's swing, rad. */
const SWAY = { amplitude: 0.35, period: 4 };
const SWING = { amplitude: 0.9, period: 2 };
/** The head: a mesh of a 0.2 m sphere about its own origin, placed by `offset`. */
const HEAD = { radius: 0.2, ...icosphere(3, 0.2) };

/** The settings that shape a library scene. */
export interface WorldSettings {
  scene: string;
  /** Wind speed, m/s (0: none). */
  wind: number;
  /** Weft's colliders on (the character and the floor). */
  colliders: boolean;
}

/** Whether the scene is one of Weft's own physics (no demo pass after the steps). */
export const isLibraryScene = (scene: string): boolean => scene === 'flag' || scene === 'character';

/** The character at time t: shoulders at 1.55 m, its right arm swinging forward and back. */
function character(t: number): Collider[] {
  const x = SWAY.amplitude * Math.sin((2 * Math.PI * t) / SWAY.period);
  const swing = SWING.amplitude * Math.sin((2 * Math.PI * t) / SWING.period);
  const at = (p: readonly number[]): Vec3 => [p[0]! + x, p[1]!, p[2]!];
  const surface = { friction: FRICTION, thickness: THICKNESS };
  const hand: Vec3 = [0.45, 1.5 - 0.65 * Math.cos(swing), 0.65 * Math.sin(swing)];
  return [
    { shape: 'capsule', a: at([0, 0.95, 0]), b: at([0, 1.45, 0]), radius: 0.26, ...surface }, // torso
    {
      shape: 'mesh',
      vertices: HEAD.vertices,
      triangles: HEAD.triangles,
      offset: at([0, 1.85, 0]),
      ...surface,
    }, // head
    { shape: 'capsule', a: at([0.45, 1.5, 0]), b: at(hand), radius: 0.09, ...surface }, // right arm (swings)
    { shape: 'capsule', a: at([-0.45, 1.5, 0]), b: at([-0.5, 0.9, 0]), radius: 0.09, ...surface }, // left arm
    { shape: 'capsule', a: at([0.14, 0.1, 0]), b: at([0.14, 0.85, 0]), radius: 0.11, ...surface }, // legs
    { shape: 'capsule', a: at([-0.14, 0.1, 0]), b: at([-0.14, 0.85, 0]), radius: 0.11, ...surface },
  ];
}

const FLOOR: Collider = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: FRICTION, thickness: THICKNESS }; // prettier-ignore

/** The colliders of a library scene at time t (the floor last), or none. */
export function worldColliders(settings: WorldSettings, t: number): Collider[] {
  if (!isLibraryScene(settings.scene) || !settings.colliders) return [];
  return settings.scene === 'character' ? [...character(t), FLOOR] : [FLOOR];
}

/** `model` with the library scene's colliders (at time t) and wind; other scenes unchanged. */
export function withWorld(model: Model, settings: WorldSettings, t: number): Model {
  if (!isLibraryScene(settings.scene)) return model;
  const posed = withColliders(model, worldColliders(settings, t));
  if (settings.wind <= 0) return posed;
  const velocity = FLAG_WIND.map((c) => c * settings.wind) as Vec3;
  return withWind(posed, { velocity, drag: 1, lift: 0.5, turbulence: 0.3 * settings.wind, turbulenceWavelength: 1.5, turbulencePeriod: 0.8 }); // prettier-ignore
}

/** The poses of the moving colliders at time t (the character's), for setColliderPose. */
export function colliderPoses(settings: WorldSettings, t: number): [number, ColliderPose][] {
  if (settings.scene !== 'character' || !settings.colliders) return [];
  return character(t).map((c, k): [number, ColliderPose] => [k, c.shape === 'capsule' ? { a: c.a, b: c.b } : c.shape === 'mesh' ? { offset: c.offset! } : c.shape === 'sphere' ? { center: c.center } : {}]); // prettier-ignore
}

/** The colliders to draw at time t: capsules and spheres as (a, b, radius); the floor is the renderer's. */
export function drawnColliders(settings: WorldSettings, t: number): { a: Vec3; b: Vec3; radius: number }[] {
  return worldColliders(settings, t).flatMap((c) => {
    if (c.shape === 'capsule') return [{ a: [...c.a] as Vec3, b: [...c.b] as Vec3, radius: c.radius }];
    if (c.shape === 'sphere')
      return [{ a: [...c.center] as Vec3, b: [...c.center] as Vec3, radius: c.radius }];
    if (c.shape === 'mesh')
      return [{ a: [...c.offset!] as Vec3, b: [...c.offset!] as Vec3, radius: HEAD.radius }];
    return [];
  });
}
