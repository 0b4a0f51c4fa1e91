/**
 * Contacts with a model's colliders as ops of the scheme's program (src/integrators/program.ts):
 * implicit Euler constrains its solve (`contacts` before it, `contactForces` after it: Baraff &
 * Witkin 1998 §5.3), explicit and multistep schemes project after each step (`project`). The other
 * implicit schemes solve for other unknowns (Newmark's a₊, Newton's increments) whose constraints
 * are not written yet, and adaptive ones retry steps: they refuse colliders. On WebGPU the ops
 * are shaders/contact-*.wgsl (src/backends/webgpu/contact-ops.ts); block Jacobi has no filtered
 * update there yet and refuses them.
 */
import { WeftInputError } from '../core/errors.ts';
import type { IntegratorName } from './catalog.ts';
import { INTEGRATORS } from './catalog.ts';
import type { Op, Program } from './program.ts';

/** Throws when colliders cannot be used with this integrator on this backend, naming why. */
export function requireContactSupport(colliderCount: number, integrator: IntegratorName, backend: 'cpu' | 'webgpu', solver?: unknown): void {
  if (colliderCount === 0) return;
  const family = INTEGRATORS[integrator].family;
  if (family === 'adaptive')
    throw new WeftInputError('colliders', `are not supported by the adaptive integrator '${integrator}' yet: use a fixed-step one`);
  if (family === 'implicit' && integrator !== 'implicit-euler')
    throw new WeftInputError('colliders', `are not supported by '${integrator}' yet: use 'implicit-euler', or an explicit or multistep integrator`);
  if (family === 'implicit' && backend === 'webgpu' && solver === 'jacobi')
    throw new WeftInputError('colliders', "with solver 'jacobi' are not supported on WebGPU yet: use 'cg', 'pcg' or 'multigrid'");
} // prettier-ignore

/** `program` with its contact ops (the model has `colliderCount` colliders; 0: unchanged). */
export function withContacts(
  program: Program,
  integrator: IntegratorName,
  colliderCount: number,
  backend: 'cpu' | 'webgpu' = 'cpu',
): Program {
  requireContactSupport(colliderCount, integrator, backend);
  if (colliderCount === 0) return program;
  // Kinematic colliders move over each step: explicit steps project against the moved pose
  // (the state is at the step's end), implicit solves are constrained at the pose the step starts from.
  const move: Op = { op: 'moveColliders' };
  if (!program.implicit) {
    const project: Op = { op: 'project', x: 'x', v: 'v' };
    return { ...program, startup: [...program.startup, move, project], step: [...program.step, move, project] }; // prettier-ignore
  }
  const step = program.step.flatMap((op): Op[] =>
    op.op === 'solve'
      ? [
          { op: 'contacts', x: 'x', v: 'v', solution: op.to },
          op,
          { op: 'contactForces', solution: op.to, rhs: op.rhs, v: 'v', x: 'x' },
        ]
      : [op],
  );
  return { ...program, step: [...step, move] };
}
