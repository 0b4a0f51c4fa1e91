/**
 * The book of kinematic colliders ({@link Simulation.setColliderPose}), kept once for every
 * fixed-step simulation; a backend only carries out its writes ({@link ColliderSink}).
 *
 * As kinematic particles do (attachments.ts), a collider moves during the call after its pose was
 * set: over a call of `steps` steps of h it moves at the constant velocity
 * u = (new pose − pose at the call's start) / (steps h) — so with one step per call, u is the pose
 * change over dt — a `moveColliders` op advancing it by h u after each step, and it is put exactly
 * on its new pose at the call's end. A plane's normal, and any pose a call starts from, is set at
 * once. The contacts use u as the velocity of the surface (src/model/collider-pose.ts).
 */
import { posedCollider } from '../../model/collider-pose.ts';
import type { ResolvedCollider } from '../../model/colliders.ts';

/** What a backend does for {@link ColliderPoses}. */
export interface ColliderSink {
  /**
   * Collider `index` is at `pose` now and moves at `up` (its p) and `uq` (its q: a capsule's b;
   * zero for the other shapes), m/s, until the next write.
   */
  writeCollider(index: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void;
}

const ZERO = [0, 0, 0] as const;

/** The poses set by setColliderPose and the velocities they give each call (the module's comment). */
export class ColliderPoses {
  /** Where each collider is at the start of the next call. */
  private readonly from: ResolvedCollider[];
  /** Where each collider is to be at the end of the next call. */
  private readonly target: ResolvedCollider[];
  /** Colliders that moved in the last call (their velocity is to be reset) or have a new pose. */
  private readonly changed = new Set<number>();
  private sink: ColliderSink | null = null;
  /** A pose was set and no call has begun to move to it yet. */
  private requested = false;

  constructor(colliders: readonly ResolvedCollider[]) {
    this.from = [...colliders];
    this.target = [...colliders];
  }

  connect(sink: ColliderSink): void {
    this.sink = sink;
  }

  /** Validates and books a new pose of collider `index` for the end of the next call. */
  set(index: number, pose: unknown): void {
    this.target[index as number] = posedCollider(this.target, index, pose);
    this.changed.add(index);
    this.requested = true;
  }

  /** Before a call of `steps` steps of h: each changed collider's start pose and velocity. */
  begin(steps: number, h: number): void {
    if (this.changed.size === 0 || steps === 0 || !this.sink) return;
    this.requested = false;
    const moving = new Set<number>();
    for (const k of this.changed) {
      const [a, b] = [this.from[k]!, this.target[k]!];
      const rate = (to: readonly number[], at: readonly number[]): number[] => to.map((x, d) => (x - at[d]!) / (steps * h)); // prettier-ignore
      const up = rate(b.p, a.p);
      const uq = b.shape === 'capsule' ? rate(b.q, a.q) : [...ZERO];
      // A plane's normal (and a box's or sphere's q, which does not move) is the new one at once.
      const start = b.shape === 'capsule' ? a : { ...b, p: a.p };
      this.sink.writeCollider(k, start, up, uq);
      if (up.some((u) => u !== 0) || uq.some((u) => u !== 0)) moving.add(k);
      this.from[k] = b;
    }
    this.changed.clear();
    for (const k of moving) this.changed.add(k);
  }

  /** Whether a pose was set that no call has begun to move to. */
  get pending(): boolean {
    return this.requested;
  }

  /** After the call: each collider that moved is put exactly on its pose, at rest until the next call. */
  end(): void {
    if (!this.sink) return;
    for (const k of this.changed) this.sink.writeCollider(k, this.from[k]!, ZERO, ZERO);
  }
}
