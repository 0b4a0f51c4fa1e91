/**
 * Which integrators bend (src/model/bending.ts): every fixed-step one, explicit or implicit, on
 * both backends — the hinges' forces join each `eval`, their Gauss–Newton K and damping B join
 * each `jacobians`, `rhs`, system product and diagonal (src/backends/cpu/bending.ts,
 * src/backends/webgpu/bending-ops.ts). So do rk45 and step doubling, whose programs are made of the
 * same ops (on WebGPU on the per-op executor: the fused adaptive kernel, shaders/fused-*.wgsl, has
 * no hinge passes). Velocity-implicit Euler refuses it: the CPU runs Drake's stepper
 * (src/backends/cpu/velocity-implicit-euler.ts), whose forces are the springs' alone.
 */
import { WeftInputError } from '../core/errors.ts';
import type { IntegratorName } from './catalog.ts';

/** Throws when bending cannot be used with this integrator, naming why. */
export function requireBendingSupport(hasBending: boolean, integrator: IntegratorName): void {
  if (hasBending && integrator === 'velocity-implicit-euler')
    throw new WeftInputError('bending', `is not supported by '${integrator}' yet: use 'rk45', 'step-doubling' or a fixed-step integrator`); // prettier-ignore
}
