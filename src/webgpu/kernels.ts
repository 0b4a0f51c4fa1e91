/** The WGSL kernels, loaded as text (Vite `?raw`) and reflected once. */
import common from '../../shaders/common.wgsl?raw';
import springForces from '../../shaders/spring-forces.wgsl?raw';
import accelerations from '../../shaders/accelerations.wgsl?raw';
import rungeKuttaStage from '../../shaders/runge-kutta-stage.wgsl?raw';
import symplecticUpdate from '../../shaders/symplectic-update.wgsl?raw';
import { reflectKernel, type KernelLayout } from './layout.ts';

const SOURCES = { springForces, accelerations, rungeKuttaStage, symplecticUpdate };

export type KernelName = keyof typeof SOURCES;

let reflected: Record<KernelName, KernelLayout> | undefined;

/** Every kernel with common.wgsl prepended, and its reflected layout. */
export function kernels(): Record<KernelName, KernelLayout> {
  reflected ??= Object.fromEntries(
    Object.entries(SOURCES).map(([name, source]) => [name, reflectKernel(`${common}\n${source}`)]),
  ) as Record<KernelName, KernelLayout>;
  return reflected;
}
