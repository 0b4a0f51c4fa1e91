/**
 * What every fixed-step simulation shares, on either backend: its lifecycle guard and the four
 * attachment calls of {@link Simulation} (src/backends/common/attachments.ts keeps their book; a
 * backend connects its writes when it creates its {@link ParticleAttachments}).
 */
import type { ParticleAttachments, ParticleUpdate } from './attachments.ts';
import { Lifecycle } from './lifecycle.ts';
import type { Simulation } from './simulation-types.ts';

export abstract class AttachableSimulation implements Pick<Simulation, 'setParticles' | 'pin' | 'release' | 'setTargets'> {
  protected readonly lifecycle = new Lifecycle();
  protected abstract readonly attachments: ParticleAttachments;

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
} // prettier-ignore
