/**
 * What every fixed-step simulation shares, on either backend: its lifecycle guard, the four
 * attachment calls of {@link Simulation} (src/backends/common/attachments.ts keeps their book; a
 * backend connects its writes when it creates its {@link ParticleAttachments}) and kinematic
 * colliders (collider-poses.ts keeps their book; a backend connects its {@link ColliderPoses}).
 */
import type { ParticleAttachments, ParticleUpdate } from './attachments.ts';
import type { ColliderPoses } from './collider-poses.ts';
import { Lifecycle } from './lifecycle.ts';
import type { Simulation } from './simulation-types.ts';
import type { ColliderPose } from '../../model/collider-pose.ts';

export abstract class AttachableSimulation implements Pick<Simulation, 'setParticles' | 'pin' | 'release' | 'setTargets' | 'setColliderPose'> {
  protected readonly lifecycle = new Lifecycle();
  protected abstract readonly attachments: ParticleAttachments;
  protected abstract readonly colliderPoses: ColliderPoses;

  setParticles(update: ParticleUpdate): void {
    this.lifecycle.check('setParticles()');
    this.attachments.setParticles(update);
  }

  pin(indices: ArrayLike<number>): void {
    this.lifecycle.check('pin()');
    this.attachments.pin(indices);
  }

  release(indices: ArrayLike<number>): void {
    this.lifecycle.check('release()');
    this.attachments.release(indices);
  }

  setTargets(indices: ArrayLike<number>, positions: ArrayLike<number>): void {
    this.lifecycle.check('setTargets()');
    this.attachments.setTargets(indices, positions);
  }

  setColliderPose(index: number, pose: ColliderPose): void {
    this.lifecycle.check('setColliderPose()');
    this.colliderPoses.set(index, pose);
  }

  /** Before a call of `steps` steps of h: kinematic particles' and colliders' velocities. */
  protected beginCall(steps: number, h: number): void {
    this.attachments.begin(steps, h);
    this.colliderPoses.begin(steps, h);
  }

  /** After the call: kinematic particles and colliders exactly on their targets. */
  protected endCall(): void {
    this.attachments.end();
    this.colliderPoses.end();
  }
} // prettier-ignore
