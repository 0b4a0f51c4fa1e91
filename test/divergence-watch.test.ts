/**
 * The divergence watchdog (issue 11): a finite blow-up is a WeftDivergenceError too, not only
 * NaN/Inf. Explicit Euler on a stiff rope (ω = 1000/s, h = 0.01: the amplitude grows by
 * √(1 + (hω)²) ≈ 10 per step) is still finite after 10 steps, with an energy ~10²⁰ × its start;
 * every backend and family (explicit, multistep, implicit) reports it from readState() with the energy and the bound. A stable
 * run of the same rope never comes near the bound.
 */
import { describe, expect, test } from 'vitest';
import { buildRope, createSimulation, WeftDivergenceError } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const stiff = buildRope({ particles: 2, stiffness: 1e5, particleMass: 0.1, gravity: [0, -9.81, 0] });

describe.each(BACKENDS)('%s', (backend) => {
  const device = (): object => (backend === 'webgpu' ? { device: node.runner() } : {});

  test.each([
    ['explicit-euler', {}],
    ['adams-bashforth-2', {}],
    // Newmark with β = 0, γ = ½ is the explicit central difference: λ² + ((hω)² − 2) λ + 1 = 0
    // gives |λ| ≈ 98 per step at hω = 10, through the implicit path's solve and readback.
    ['newmark', { newmarkBeta: 0 }],
  ] as const)('%s: a finite blow-up is reported with its energy', async (integrator, extra) => {
    const simulation = await createSimulation(stiff, {
      integrator,
      dt: 0.01,
      backend,
      ...extra,
      ...device(),
    });
    simulation.step(10);
    const read = simulation.readState();
    await expect(read).rejects.toThrow(WeftDivergenceError);
    const error = (await read.catch((e: unknown) => e)) as WeftDivergenceError;
    expect(error.particle).toBe(-1); // not a NaN: every coordinate was finite
    expect(error.energy!.value).toBeGreaterThan(error.energy!.bound);
    expect(error.message).toMatch(/energy rose to [\d.]+e\+\d+ J at step 10/);
    simulation.destroy();
  });

  test('a stable run (symplectic Euler, h ω = 0.5) stays far below the bound for 2,000 steps', async () => {
    const simulation = await createSimulation(stiff, { integrator: 'symplectic-euler', dt: 5e-4, backend, ...device() }); // prettier-ignore
    simulation.step(2000);
    const state = await simulation.readState();
    expect(state.step).toBe(2000);
    simulation.destroy();
  });
});
