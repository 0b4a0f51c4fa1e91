/** Whether a model fits a device's limits, checked before anything is allocated. */
import { WeftInputError } from '../../core/errors.ts';
import { FLOAT32_RANGE_TEXT, outsideFloat32 } from '../../core/float32.ts';
import type { Model } from '../../model/model.ts';
import { VEC4_BYTES } from './gpu-common.ts';
import { kernels } from './kernels.ts';

/**
 * Checks that a model fits the device before anything is allocated, naming what does not fit.
 */
export function checkDeviceFits(
  model: Model,
  limits: GPUSupportedLimits,
  workgroupSize: number,
  implicit = false,
): void {
  requireFloat32Model(model);
  const layouts = kernels();
  const springStride = layouts.programForces.bindings.get('springs')!.stride;
  const arrays: [string, number][] = [
    ['particles (vec4 per particle)', model.particleCount * VEC4_BYTES],
    ['springs (Spring structs)', model.springCount * springStride],
    ['springs (forces, vec4 per spring)', model.springCount * VEC4_BYTES],
    ['springs (incidence list)', model.incidence.entries.length * 4],
    ['bending (hinge states, 4 vec4 per hinge)', 4 * (model.bending?.hingeCount ?? 0) * VEC4_BYTES],
  ];
  if (implicit) {
    const stateStride = layouts.springJacobians.bindings.get('springStates')!.stride;
    arrays.push(
      ['springs (SpringState structs)', model.springCount * stateStride],
      [
        'springs (incidence with other endpoints)',
        (model.particleCount + 1 + 2 * model.incidence.entries.length) * 4,
      ],
      ['particles (3×3 inverse diagonal blocks)', 2 * model.particleCount * VEC4_BYTES],
      ["springs (a solve's blocks, vec4 per incidence entry)", model.incidence.entries.length * VEC4_BYTES],
    );
  }
  const maxBinding = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  for (const [what, bytes] of arrays) {
    if (bytes > maxBinding) {
      throw new WeftInputError(
        'model',
        `too large for this device: ${what} needs ${bytes} bytes, the device allows ${maxBinding} per storage buffer`,
      );
    }
  }
  const maxWorkgroupSize = Math.min(
    limits.maxComputeWorkgroupSizeX,
    limits.maxComputeInvocationsPerWorkgroup,
  );
  if (workgroupSize > maxWorkgroupSize) {
    throw new WeftInputError(
      'workgroupSize',
      `${workgroupSize} exceeds the device's limit of ${maxWorkgroupSize} (maxComputeWorkgroupSizeX ${limits.maxComputeWorkgroupSizeX}, maxComputeInvocationsPerWorkgroup ${limits.maxComputeInvocationsPerWorkgroup})`,
    );
  }
  const groups = Math.ceil(Math.max(model.particleCount, model.springCount) / workgroupSize);
  const maxGroups = limits.maxComputeWorkgroupsPerDimension;
  if (groups > maxGroups * maxGroups) {
    throw new WeftInputError(
      'model',
      `too large for this device: ${groups} workgroups exceed ${maxGroups}² per dispatch`,
    );
  }
}

/**
 * WebGPU computes in float32: a model value beyond ±3.4e38 would become Inf, and a non-zero one
 * below 1.2e-38 in magnitude would flush to 0 (a mass of 0 means a fixed particle). Either is an
 * input error naming the field and index, not a divergence later.
 */
export function requireFloat32Model(model: Model): void {
  const fields: [string, ArrayLike<number>][] = [
    ['particles.positions', model.particlePositions],
    ['particles.velocities', model.particleVelocities],
    ['particles.masses', model.particleMass],
    ['springs.stiffness', model.springStiffness],
    ['springs.restLengths', model.springRestLength],
    ['springs.damping', model.springDamping],
    ['gravity', model.gravity],
    // k_B c and d_B c per hinge (src/model/bending.ts): the GPU's copies of the user's k_B, d_B.
    ['bending.stiffness', model.bending?.hingeStiffness ?? []],
    ['bending.damping', model.bending?.hingeDamping ?? []],
  ];
  for (const [field, values] of fields)
    for (let k = 0; k < values.length; k++)
      if (outsideFloat32(values[k]!))
        throw new WeftInputError(`${field}[${k}]`, `${values[k]} is ${FLOAT32_RANGE_TEXT}; rescale the units or use the CPU backend`); // prettier-ignore
}
