/**
 * Dragging the cloth with the mouse: a press near a particle on screen grabs it (the nearest in
 * screen space within PICK_PIXELS, from positions read back a few times a second), moving the
 * pointer moves its target over a plane through the particle facing the camera, and letting go
 * releases it (or pins it again, if it was fixed). The grabbed particle is a kinematic attachment
 * of the simulation (`setTargets`): each substep moves it a share of the way to the cursor, so the
 * implicit solvers see its motion as a velocity, but never more than MAX_STEP_RESTS rest lengths
 * (a fast flick makes the target trail the pointer for a few frames instead of tearing the cloth).
 * A press away from the cloth orbits the camera.
 */
import type { GpuSimulation, Model } from '../../src/index.ts';
import type { OrbitCamera } from './camera.ts';

type Vec3 = [number, number, number];

/** How far from a particle on screen a press still grabs it, CSS pixels. */
const PICK_PIXELS = 24;
/** The camera's vertical field of view (OrbitCamera.viewProjection), radians. */
const FOV_Y = Math.PI / 4;
/** How often positions are read back for picking while nothing is held, ms. */
const READ_EVERY_MS = 150;
/**
 * The farthest the held particle's target moves in one substep, in rest lengths of its shortest
 * spring. A kinematic particle that jumps d in one implicit step leaves its neighbours nearly where
 * they were, and its edges stretch to about d: a 1.5 m flick in one frame stretched a triangle edge
 * to 10.3 rest lengths on a 64² square (4 substeps of 1/240 s) and 11.9 on a 32² one (1 of 1/60 s),
 * past the page's 10× blow-up check; capped at 2 rest lengths a substep, 3.3 and 3.0 (implicit
 * Euler on the CPU). At the page's defaults (128², 1/240 s) that is 12 m/s.
 */
export const MAX_STEP_RESTS = 2;

/** What the drag is doing, for the page's hooks (test/examples.test.ts). */
export interface DragStatus {
  /** The particle held, or null. */
  particle: number | null;
  /** Its target now (m), or null. */
  target: Vec3 | null;
  /** Its position as last read back (m), or null. */
  position: Vec3 | null;
  /** Where particle i was on screen at the last read (client pixels), or null before one. */
  screenOf(i: number): [number, number] | null;
}

interface Held {
  readonly sim: GpuSimulation;
  readonly index: number;
  readonly wasFixed: boolean;
  /** MAX_STEP_RESTS × the particle's shortest spring rest length, m: the most its target moves in a substep. */
  readonly reach: number;
  /** The cursor's point at the last frame's end, and now. */
  from: Vec3;
  to: Vec3;
  /** The target of the last substep encoded (behind `to` after a flick). */
  at: Vec3;
}

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const normalize = (v: Vec3): Vec3 => {
  const l = Math.hypot(...v);
  return [v[0] / l, v[1] / l, v[2] / l];
};
/** `from` moved towards `to` by at most `reach`. */
function towards(from: Vec3, to: Vec3, reach: number): Vec3 {
  const d = sub(to, from);
  const length = Math.hypot(...d);
  if (length <= reach) return to;
  const f = reach / length;
  return [from[0] + f * d[0], from[1] + f * d[1], from[2] + f * d[2]];
}

/** The rest length of particle i's shortest spring, m (Infinity if it has none). */
function shortestSpring(model: Model, i: number): number {
  const { offsets, entries } = model.incidence;
  let shortest = Infinity;
  for (let e = offsets[i]!; e < offsets[i + 1]!; e++) shortest = Math.min(shortest, model.springRestLength[entries[e]! >> 1]!); // prettier-ignore
  return shortest;
}

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore

export class ClothDrag {
  readonly status: DragStatus = {
    particle: null,
    target: null,
    position: null,
    screenOf: (i) => {
      const at = this.positions ? this.screen(this.positions, i) : null;
      return at ? [at[0], at[1]] : null;
    },
  };
  private positions: Float64Array | null = null;
  private velocities: Float64Array | null = null;
  /** The simulated time of `positions`, s. */
  private positionsTime = 0;
  private positionsOf: GpuSimulation | null = null;
  private reading = false;
  private lastRead = 0;
  private held: Held | null = null;

  /**
   * Listens on `canvas`; call before the camera attaches, so that a grab stops its orbit. `time`
   * is the simulated time the steps encoded so far reach, s.
   */
  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly camera: OrbitCamera,
    private readonly current: () => { sim: GpuSimulation; model: Model } | null,
    private readonly time: () => number,
  ) {
    canvas.addEventListener('pointerdown', (event) => this.press(event));
    canvas.addEventListener('pointermove', (event) => this.move(event));
    const up = (): void => this.letGo();
    canvas.addEventListener('pointerup', up);
    canvas.addEventListener('pointercancel', up);
  }

  /** Reads positions back now and then (for picking, and the held particle's status). */
  poll(sim: GpuSimulation): void {
    const now = performance.now();
    if (this.reading || now - this.lastRead < READ_EVERY_MS) return;
    this.reading = true;
    this.lastRead = now;
    const time = this.time(); // the read follows the steps encoded so far, and no more
    sim
      .readState()
      .then((state) => {
        this.positions = state.positions;
        this.velocities = state.velocities;
        this.positionsTime = time;
        this.positionsOf = sim;
        const i = this.held?.sim === sim ? this.held.index : null;
        this.status.position = i === null ? null : [state.positions[3 * i]!, state.positions[3 * i + 1]!, state.positions[3 * i + 2]!]; // prettier-ignore
      })
      .catch(() => undefined) // a diverged state: the page's own reads report it
      .finally(() => (this.reading = false));
  }

  /** Whether a particle of `sim` is held. */
  holds(sim: GpuSimulation): boolean {
    return this.held?.sim === sim;
  }

  /**
   * Before substep `s` of `count` (1-based) of `sim`: the held particle's target a share s/count
   * of the way from the last frame's cursor point to the cursor, or `reach` towards it if that is
   * farther (one setTargets per substep, since the velocity a target gives is written when the
   * substep is encoded).
   */
  beforeSubstep(sim: GpuSimulation, s: number, count: number): void {
    const held = this.held;
    if (!held || held.sim !== sim) return;
    const f = s / count;
    const wanted: Vec3 = [0, 1, 2].map((c) => held.from[c]! + f * (held.to[c]! - held.from[c]!)) as Vec3;
    held.at = towards(held.at, wanted, held.reach);
    sim.setTargets([held.index], held.at);
    if (s === count) held.from = [...held.to];
  }

  private press(event: PointerEvent): void {
    const scene = this.current();
    if (event.button !== 0 || !scene || this.positionsOf !== scene.sim || !this.positions) return;
    const index = this.pick(event, this.positions);
    if (index === null) return;
    event.stopImmediatePropagation(); // no orbit while the cloth is held
    this.canvas.setPointerCapture(event.pointerId);
    // Where the particle is now: where it was read, carried on at the velocity it had then (a read
    // is up to READ_EVERY_MS old; a falling cloth moves metres meanwhile, and the first substep
    // would jump it back that far).
    const age = this.time() - this.positionsTime;
    const p = [0, 1, 2].map((c) => this.positions![3 * index + c]! + age * (this.velocities?.[3 * index + c] ?? 0)) as Vec3; // prettier-ignore
    const wasFixed = scene.model.particleFixed[index] === 1;
    scene.sim.setTargets([index], p);
    const reach = MAX_STEP_RESTS * shortestSpring(scene.model, index);
    this.held = { sim: scene.sim, index, wasFixed, reach, from: p, to: p, at: p };
    Object.assign(this.status, { particle: index, target: p, position: p });
  }

  private move(event: PointerEvent): void {
    const held = this.held;
    if (!held) return;
    event.stopImmediatePropagation();
    const point = this.onPlane(event, held.to);
    if (point) held.to = point;
    this.status.target = held.to;
  }

  private letGo(): void {
    const held = this.held;
    this.held = null;
    Object.assign(this.status, { particle: null, target: null, position: null });
    if (!held || this.current()?.sim !== held.sim) return;
    if (held.wasFixed) held.sim.pin([held.index]);
    else held.sim.release([held.index]);
  }

  /** Particle i of `x` on screen: client pixels and the clip-space w (its depth), or null behind the eye. */
  private screen(x: Float64Array, i: number, m = this.projection()): [number, number, number] | null {
    const rect = this.canvas.getBoundingClientRect();
    const [a, b, c] = [x[3 * i]!, x[3 * i + 1]!, x[3 * i + 2]!];
    const w = m[3]! * a + m[7]! * b + m[11]! * c + m[15]!;
    if (!(w > 0)) return null;
    const sx = ((m[0]! * a + m[4]! * b + m[8]! * c + m[12]!) / w + 1) * 0.5 * rect.width;
    const sy = (1 - (m[1]! * a + m[5]! * b + m[9]! * c + m[13]!) / w) * 0.5 * rect.height;
    return [rect.left + sx, rect.top + sy, w];
  }

  private projection(): Float32Array {
    const rect = this.canvas.getBoundingClientRect();
    return this.camera.viewProjection(rect.width / rect.height);
  }

  /** The particle nearest the pointer on screen, within PICK_PIXELS; the nearer to the eye on a tie. */
  private pick(event: PointerEvent, x: Float64Array): number | null {
    const m = this.projection();
    let best: number | null = null;
    let bestScore = Infinity;
    for (let i = 0; i < x.length / 3; i++) {
      const at = this.screen(x, i, m);
      if (!at) continue;
      const distance = Math.hypot(at[0] - event.clientX, at[1] - event.clientY);
      const score = distance + 1e-3 * at[2]; // depth breaks ties
      if (distance <= PICK_PIXELS && score < bestScore) [best, bestScore] = [i, score];
    }
    return best;
  }

  /** Where the ray through the pointer meets the plane through `through` facing the camera. */
  private onPlane(event: PointerEvent, through: Vec3): Vec3 | null {
    const rect = this.canvas.getBoundingClientRect();
    const eye: Vec3 = [...this.camera.eye];
    const back = normalize(sub(eye, [...this.camera.target]));
    const right = normalize(cross([0, 1, 0], back));
    const up = cross(back, right);
    const t = Math.tan(FOV_Y / 2);
    const nx = ((event.clientX - rect.left) / rect.width) * 2 - 1;
    const ny = 1 - ((event.clientY - rect.top) / rect.height) * 2;
    const aspect = rect.width / rect.height;
    const ray: Vec3 = [0, 1, 2].map((c) => -back[c]! + nx * t * aspect * right[c]! + ny * t * up[c]!) as Vec3;
    const along = dot(ray, back);
    if (Math.abs(along) < 1e-9) return null;
    const s = dot(sub(through, eye), back) / along;
    return s > 0 ? [eye[0] + s * ray[0], eye[1] + s * ray[1], eye[2] + s * ray[2]] : null;
  }
}
