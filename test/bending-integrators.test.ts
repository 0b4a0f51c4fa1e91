/**
 * Every fixed-step integrator feels dihedral bending (src/model/bending.ts) on the CPU: the first
 * step of h = 10 µs from rest of a free, bumped, flat-at-rest sheet with no springs and no gravity
 * gives Δp / h = −∇E to first order in h (p = m v, or the scheme's momenta), −∇E from central
 * differences of the energy. And with rest angles from the initial shape, no force at all.
 */
import { expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation, type Model } from '../src/index.ts';
import { bendingEnergy, FIXED_STEP_INTEGRATOR_NAMES } from '../src/internal.ts';

function bumpy(): Model {
  const flat = buildCloth({ nx: 5, ny: 5, spacing: 0.1, pins: 'none', gravity: [0, 0, 0] });
  const bump = (k: number) => 0.02 * Math.sin(1.7 * k + 0.3 * k * k);
  return createModel({ positions: flat.particlePositions.map((x, k) => x + bump(k)), masses: flat.particleMass, springPairs: [], springStiffness: 0, triangles: flat.triangleIndices, gravity: [0, 0, 0], bending: { stiffness: 0.05, restAngles: 'flat' } }); // prettier-ignore
}

const model = bumpy();
const x = model.particlePositions;
const expected = x.map((_, k) => {
  const [plus, minus] = [x.slice(), x.slice()];
  plus[k]! += 1e-7;
  minus[k]! -= 1e-7;
  return -(bendingEnergy(model.bending!, plus) - bendingEnergy(model.bending!, minus)) / 2e-7;
});
const scale = Math.max(...expected.map(Math.abs));

test.each(FIXED_STEP_INTEGRATOR_NAMES)('%s: Δp / h after one step of 10 µs is −∇E (to 1e-3 of max |f|)', async (integrator) => {
  const h = 1e-5;
  const sim = await createSimulation(model, { integrator, dt: h });
  sim.step(1);
  const state = await sim.readState();
  sim.destroy();
  // variational-symplectic-implicit reports its momenta p apart (its v is x's midpoint velocity).
  const momenta = state.momenta ?? state.velocities.map((v, k) => model.particleMass[Math.floor(k / 3)]! * v);
  const force = momenta.map((p) => p / h);
  const worst = Math.max(...force.map((f, k) => Math.abs(f - expected[k]!)));
  expect(worst).toBeLessThan(1e-3 * scale);
}); // prettier-ignore

test('rest angles from the initial shape: the bumpy sheet at rest feels no force (velocities exactly 0)', async () => {
  const rest = createModel({ positions: x, masses: model.particleMass, springPairs: [], springStiffness: 0, triangles: model.triangleIndices, gravity: [0, 0, 0], bending: { stiffness: 0.05 } }); // prettier-ignore
  expect(Math.max(...Array.from(rest.bending!.hingeRestAngle, Math.abs))).toBeGreaterThan(0.1);
  const sim = await createSimulation(rest, { integrator: 'symplectic-euler', dt: 1e-3 });
  sim.step(1);
  expect(Array.from((await sim.readState()).velocities)).toEqual(Array.from(new Float64Array(x.length)));
  sim.destroy();
});
