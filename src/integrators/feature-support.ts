/**
 * Which of a model's features an integrator supports, checked in one place for every way a
 * simulation is made (createSimulation, createAdaptiveSimulation, new AdaptiveSimulation): a
 * feature an integrator has no ops for would otherwise be left out of its steps without a word
 * (a particle falling through a plane). The README's support table is generated from the same
 * checks (featureSupportMarkdown, `npm run docs`).
 */
import { WeftInputError } from '../core/errors.ts';
import type { Model } from '../model/model.ts';
import { INTEGRATOR_NAMES, type IntegratorName } from './catalog.ts';

/**
 * Throws a WeftInputError naming the model's first feature that `integrator` cannot run. Every
 * integrator runs every feature today (the variational scheme took colliders last, 30 Nov 2026):
 * the check stays, with its table, for the next feature that lands on some integrators first.
 */
export function requireFeatureSupport(model: Model | null | undefined, integrator: IntegratorName): void {
  for (const feature of FEATURES) if (feature.present(model)) feature.check(integrator);
}

/** Each column of the support table: a model feature, whether a model has it, and the check that refuses it. */
const FEATURES: readonly { readonly name: string; readonly present: (model: Model | null | undefined) => boolean; readonly check: (integrator: IntegratorName) => void }[] = [
  // The implicit schemes but the variational one constrain their solves; every other scheme
  // projects after each (accepted) step (contact-programs.ts).
  { name: 'colliders', present: (m) => (m?.colliders?.length ?? 0) > 0, check: () => undefined },
  // Every integrator bends (hinges join each eval, jacobians, rhs, product and diagonal on both
  // backends; velocity-implicit Euler's Drake stepper adds them itself): nothing to refuse.
  { name: 'bending', present: (m) => Boolean(m?.bending), check: () => undefined },
  // So does every integrator take a strain limit (sweeps after each step or accepted step).
  { name: 'strain limit', present: (m) => Boolean(m?.strainLimit), check: () => undefined },
  // And wind, steady or turbulent (each evaluation at its stage's time: wind-programs.ts).
  { name: 'wind', present: (m) => Boolean(m?.wind), check: () => undefined },
  // And self-collision (pairs listed at each step's or accepted state's start, the fail-safe after it).
  { name: 'self-collision', present: (m) => Boolean(m?.selfCollision), check: () => undefined },
]; // prettier-ignore

/** Whether `check` lets `integrator` run the feature. */
function supports(check: (integrator: IntegratorName) => void, integrator: IntegratorName): boolean {
  try {
    check(integrator);
    return true;
  } catch (error) {
    if (error instanceof WeftInputError) return false;
    throw error;
  }
}

/**
 * The README's table of which integrators take which model features (between
 * `<!-- features:start -->` and `<!-- features:end -->`): integrators with the same support share
 * a row, in catalog order.
 */
export function featureSupportMarkdown(): string {
  const rows = new Map<string, IntegratorName[]>();
  for (const integrator of INTEGRATOR_NAMES) {
    const marks = FEATURES.map((f) => (supports(f.check, integrator) ? 'yes' : '—')).join(' | ');
    rows.set(marks, [...(rows.get(marks) ?? []), integrator]);
  }
  return [
    `| integrators | ${FEATURES.map((f) => f.name).join(' | ')} |`,
    `| --- |${' --- |'.repeat(FEATURES.length)}`,
    ...[...rows].map(([marks, names]) => `| ${names.map((n) => `\`${n}\``).join(', ')} | ${marks} |`),
  ].join('\n');
}
