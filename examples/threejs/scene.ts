/**
 * The three.js example's cloth and how it is integrated, shared by the page (main.ts) and its test
 * (test/threejs.test.ts), which steps the same model on Weft's CPU reference to check the page.
 */
import { buildCloth, type FixedStepSimulationOptions, type Model } from '../../src/index.ts';

/** The cloth: 0.5 kg over 1 m², springs in N/m. */
export const MASS = 0.5;
export const STIFFNESS = { structural: 600, shear: 20, bend: 4 } as const;
/** Rayleigh mass damping r_m (air drag −r_m m v), 1/s: the cloth swings down and comes to hang in a few seconds. */
export const RAYLEIGH_MASS = 1.5;

/** A size × size cloth 1 m wide, lying flat at y = 0.5 m, pinned at its two corners on the z = 0.5 m edge. */
export function clothModel(size: number): Model {
  return buildCloth({
    nx: size,
    ny: size,
    spacing: 1 / (size - 1),
    particleMass: MASS / size ** 2,
    structuralStiffness: STIFFNESS.structural,
    shearStiffness: STIFFNESS.shear,
    bendStiffness: STIFFNESS.bend,
    damping: 0.005,
    pins: 'top-corners',
    origin: [-0.5, 0.5, -0.5],
  });
}

/**
 * Symplectic Euler is explicit: stable for dt < 2/ω_max, with ω_max² ≤ 2 Σk / m (Gershgorin; a
 * particle has at most 4 springs of each kind). The step is half that limit; a frame integrates
 * 1/60 s in as many steps as that takes.
 */
export function integration(size: number): {
  options: FixedStepSimulationOptions;
  stepsPerFrame: number;
} {
  const sumK = STIFFNESS.structural + STIFFNESS.shear + STIFFNESS.bend;
  const dt = 1 / Math.sqrt((2 * 4 * sumK) / (MASS / size ** 2));
  return {
    options: { integrator: 'symplectic-euler', dt, rayleighMass: RAYLEIGH_MASS },
    stepsPerFrame: Math.ceil(1 / 60 / dt),
  };
}
