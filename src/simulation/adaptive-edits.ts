/**
 * What an adaptive simulation (rk45, step doubling, velocity-implicit Euler) lets an app change while it runs, as a
 * fixed-step one does (src/backends/common/attachments.ts, collider-poses.ts): teleport particles
 * (setParticles), pin and release them, drive pinned ones along targets (setTargets), and move
 * kinematic colliders (setColliderPose). A call has no step count here, so its duration is the
 * advanceTo(t) that follows: a kinematic particle moves at (target − from) / (t − now) over it and
 * a collider at (pose − pose now) / (t − now), each accepted step by h times that; advance(n) has
 * no duration and refuses to run while a target or pose is pending. A write to the state makes the
 * stepper evaluate its first stage again (rk45's k₁ = F(y) is kept per accepted state).
 * (velocity-implicit Euler: its Jacobian is evaluated afresh). The fused WebGPU kernel keeps its
 * state its own way: it refuses the particle edits, naming `fused`, and has no colliders.
 */
import { ParticleAttachments, type ParticleUpdate } from '../backends/common/attachments.ts';
import { ColliderPoses, type ColliderSink } from '../backends/common/collider-poses.ts';
import { WeftInputError } from '../core/errors.ts';
import type { Model } from '../model/model.ts';
import type { ColliderPose } from '../model/collider-pose.ts';

/** A stepper whose state the edits write: the program steppers (CPU and per-op WebGPU). */
export interface EditableStepper extends ColliderSink {
  /** Writes xyz values of `indices` into the vector `name` ('x' or 'v'). */
  writeVector(name: string, indices: Uint32Array, xyz: Float64Array): void;
  /** The stepper's model's inverse masses of `indices` changed: upload them (WebGPU). */
  writeMasses(indices: Uint32Array): void;
  /** The state changed under the stepper: its first stage is to be evaluated again. */
  invalidate(): void;
}

/** The particle and collider edits of an adaptive simulation (this module's comment). */
export class AdaptiveEdits {
  /** The model with its own fixed flags and inverse masses, which pin and release change. */
  readonly model: Model;
  private readonly attachments: ParticleAttachments;
  private readonly poses: ColliderPoses;
  /** Why the particle edits are refused ([field, reason]); null when the stepper takes them. */
  private refusal: readonly [string, string] | null = ['integrator', 'no stepper connected'];
  /** The stepper takes collider poses (ColliderSink). */
  private posesConnected = false;
  /** An advance call is running (edits are refused). */
  private running = false;

  constructor(model: Model) {
    this.attachments = new ParticleAttachments(model);
    this.model = this.attachments.model;
    this.poses = new ColliderPoses(model.colliders);
  }

  /**
   * Connects `stepper`, built on `stepperModel` (this.model on the CPU; on WebGPU a private copy
   * whose masses are kept equal to this.model's); one that is not an {@link EditableStepper}
   * refuses the particle edits, naming `fused` or `integrator`.
   */
  connect(stepper: object, stepperModel: Model, integrator: string, fused: boolean): void {
    // Colliders act after each accepted step: any stepper with a collider sink takes their poses
    // (velocity-implicit Euler's too); one without has no colliders (the fused kernel).
    this.posesConnected = 'writeCollider' in stepper;
    if (this.posesConnected) this.poses.connect(stepper as ColliderSink);
    if (!('invalidate' in stepper)) {
      this.refusal = !fused ? ['integrator', `'${integrator}' has no stepper that takes particle edits`] : ['fused', 'the fused kernel keeps its own state; create the simulation with fused: false']; // prettier-ignore
      return;
    }
    const editable = stepper as EditableStepper;
    this.refusal = null;
    // Every write to the state makes the stepper evaluate its first stage again (k₁, the
    // self-contact pairs); colliders do not enter it (they act after each accepted step).
    this.attachments.connect({
      writeVector: (name, indices, xyz) => {
        editable.writeVector(name, indices, xyz);
        editable.invalidate();
      },
      writeMasses: (indices) => {
        for (const i of indices) {
          stepperModel.particleInvMass[i] = this.model.particleInvMass[i]!;
          stepperModel.particleFixed[i] = this.model.particleFixed[i]!;
        }
        editable.writeMasses(indices);
      },
      restart: () => editable.invalidate(),
      rebuildHierarchy: () => {}, // explicit programs: no multigrid hierarchy
    });
  }

  setParticles(update: ParticleUpdate): void {
    this.refuse('setParticles()');
    this.attachments.setParticles(update);
  }

  pin(indices: ArrayLike<number>): void {
    this.refuse('pin()');
    this.attachments.pin(indices);
  }

  release(indices: ArrayLike<number>): void {
    this.refuse('release()');
    this.attachments.release(indices);
  }

  setTargets(indices: ArrayLike<number>, positions: ArrayLike<number>): void {
    this.refuse('setTargets()');
    this.attachments.setTargets(indices, positions);
  }

  setColliderPose(index: number, pose: ColliderPose): void {
    if (!this.posesConnected) this.refuse('setColliderPose()');
    this.refuseWhileRunning('setColliderPose()');
    this.poses.set(index, pose);
  }

  /**
   * Runs an advance call: over `duration` s (advanceTo: targets and poses reached over it, exactly
   * on them at its end, also when it throws) or with none (advance(n): refused while a target or a
   * pose is pending; kinematic particles and colliders at rest). Edits are refused while it runs
   * (on WebGPU an app's handler may run between an attempt and its acceptance).
   */
  async during(duration: number | null, body: () => Promise<void>): Promise<void> {
    if (duration === null && (this.poses.pending || this.attachments.pending))
      throw new WeftInputError(this.poses.pending ? 'setColliderPose' : 'setTargets', 'a new pose or target is reached over the next advanceTo(t), which gives it a duration: advance(n) has none'); // prettier-ignore
    const moves = duration === null || duration > 0;
    if (moves) {
      this.attachments.begin(1, duration ?? 1); // with no duration nothing is pending: velocities 0
      this.poses.begin(1, duration ?? 1);
    }
    this.running = true;
    try {
      await body();
    } finally {
      this.running = false;
      if (moves) {
        this.attachments.end();
        this.poses.end();
      }
    }
  }

  private refuseWhileRunning(what: string): void {
    if (this.running) throw new WeftInputError(what, 'is called while advance() or advanceTo() runs: await it first'); // prettier-ignore
  }

  private refuse(what: string): void {
    this.refuseWhileRunning(what);
    if (!this.refusal) return;
    const [field, reason] = this.refusal;
    throw new WeftInputError(field, `${what} is not supported here: ${reason}`);
  }
}
