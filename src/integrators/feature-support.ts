/**
 * Which of a model's features an integrator supports, checked in one place for every way a
 * simulation is made (createSimulation, createAdaptiveSimulation, new AdaptiveSimulation): a
 * feature an integrator has no ops for would otherwise be left out of its steps without a word
 * (a particle falling through a plane).
 */
import type { Model } from '../model/model.ts';
import { requireBendingSupport } from './bending-support.ts';
import type { IntegratorName } from './catalog.ts';
import { requireContactSupport } from './contact-programs.ts';
import { requireSelfContactSupport } from './self-contact-programs.ts';
import { requireStrainLimitSupport } from './strain-programs.ts';
import { requireWindSupport } from './wind-programs.ts';

/** Throws a WeftInputError naming the model's first feature that `integrator` cannot run. */
export function requireFeatureSupport(model: Model | null | undefined, integrator: IntegratorName): void {
  requireContactSupport(model?.colliders?.length ?? 0, integrator);
  requireWindSupport(model?.wind ?? null, integrator);
  requireBendingSupport(Boolean(model?.bending), integrator);
  requireSelfContactSupport(Boolean(model?.selfCollision), integrator);
  requireStrainLimitSupport(model?.strainLimit ?? null, integrator);
}
