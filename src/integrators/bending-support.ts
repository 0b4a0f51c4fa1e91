/**
 * Which integrators bend (src/model/bending.ts): every fixed-step one, explicit or implicit, on
 * both backends — the hinges' forces join each `eval`, their Gauss–Newton K and damping B join
 * each `jacobians`, `rhs`, system product and diagonal (src/backends/cpu/bending.ts,
 * src/backends/webgpu/bending-ops.ts). Adaptive integrators refuse it, as they refuse wind: the
 * fused adaptive kernel (shaders/fused-*.wgsl) has no hinge passes.
 */
import { WeftInputError } from '../core/errors.ts';
import type { IntegratorName } from './catalog.ts';
import { INTEGRATORS } from './catalog.ts';

/** Throws when bending cannot be used with this integrator, naming why. */
export function requireBendingSupport(hasBending: boolean, integrator: IntegratorName): void {
  if (hasBending && INTEGRATORS[integrator].family === 'adaptive')
    throw new WeftInputError('bending', `is not supported by the adaptive integrator '${integrator}' yet: use a fixed-step one`); // prettier-ignore
}
