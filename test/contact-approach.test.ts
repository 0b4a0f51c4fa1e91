/**
 * Which particles a constrained solve takes as contacts (src/backends/cpu/contacts.ts detect,
 * shaders/contact-detect.wgsl): those whose free flight ends the step behind a surface, by the
 * normal approach relative to the surface, g + h ((v − u)·n + h g·n) < 0 (Baraff & Witkin 1998
 * §5–6: a constraint where the unconstrained motion violates it), not all those within one step
 * at their whole speed plus the fastest collider's, h (|v| + max |u|) + h² |g|. The latter pulled
 * a particle sliding fast along a floor onto it at −gap/h, its force read that as adhesion and
 * released it, and the next step ended behind the floor by up to h |v| (the demo's 64² character
 * scene crumpled: reports/design/contact-release-cycle.md).
 *
 * One step of h = 1/240 s from rest-free states, no springs, so every end state is analytic:
 * free flight v₊ = v + h g, x₊ = x + h v₊ (implicit and backward Euler); Newmark (γ = ½, β = ¼)
 * starts from a₀ = M⁻¹ f = g (src/integrators/implicit-programs.ts): v₊ = v + h g,
 * x₊ = x + h v + ½ h² g. A contact ends the step on the
 * surface with (v₊ − u)·n = −gap/h (implicit and backward Euler, x₊ = x + h v₊); Newmark's
 * trapezoidal x₊ ends that step behind it (by h (|v·n| − gap/h)/2 = 1.25 mm here) and its
 * end-of-step projection puts it on the surface moving with it, (v₊ − u)·n = 0
 * (src/integrators/contact-programs.ts).
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation, type Collider } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';
import { SCENES } from './helpers/wgsl-quick-cases.ts';

const node = useNodeDevice((device) => device);
const H = 1 / 240;
const G = 9.81;
const THICKNESS = 0.01;
const floor = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS } as const;
const wall = { shape: 'plane', point: [0, 0, 0], normal: [1, 0, 0], thickness: THICKNESS } as const;

type Scheme = 'implicit-euler' | 'newmark' | 'backward-euler';
type Vec3 = readonly [number, number, number];
/** A particle's start and what the step must end with: free flight, or a contact on `surface`. */
interface Particle {
  x: Vec3;
  v: Vec3;
  /** Constrained: the contact surface's height at the step's end (m) and its velocity u_y (m/s). */
  contact?: { y: number; u: number };
}

const SCENARIOS: Record<string, { colliders: Collider[]; particles: Particle[]; floorVelocity?: Vec3 }> = {
  // 1 cm above the floor's surface: sliding at 8 m/s, closing at 0.5 m/s (free flight closes
  // h (0.5 + h g) = 2.2 mm: free); approaching at 3 m/s (h (3 + h g) = 12.7 mm: a contact,
  // ending on the surface at −gap/h = −2.4 m/s); at rest 0.1 mm from a wall, gravity along it
  // (its normal part 0: free; h² |g| = 0.17 mm took it before); sliding at 8 m/s at 1.05 h² |g|
  // above the surface, just beyond free flight's reach (free). A contact whose force clearly pulls
  // is released within its step (RELEASE_NOW_FRACTION, 5 % of its terms), which hides a
  // whole-speed reach on the first three; on the last its pull is (1.05 − 1)/(1.05 + 1) = 2.4 %:
  // held, it would end on the surface 0.05 h² |g| = 8.5 µm below free flight.
  static: {
    colliders: [floor, wall],
    particles: [
      { x: [1, 0.02, 0], v: [8, -0.5, 0] },
      { x: [2, 0.02, 0], v: [0, -3, 0], contact: { y: THICKNESS, u: 0 } },
      { x: [THICKNESS + 1e-4, 1, 0], v: [0, 0, 0] },
      { x: [3, THICKNESS + 1.05 * H * H * G, 0], v: [8, 0, 0] },
    ],
  },
  // A particle at rest 1 cm above a floor that rises at 3 m/s (relative approach 3 m/s: a
  // contact, ending on the moved surface at 3 − 2.4 = 0.6 m/s).
  rising: { colliders: [floor], particles: [{ x: [0, 0.02, 0], v: [0, 0, 0], contact: { y: THICKNESS + 3 * H, u: 3 } }], floorVelocity: [0, 3, 0] }, // prettier-ignore
  // … above a floor that slides along x at 8 m/s (no relative normal approach: free).
  sliding: { colliders: [floor], particles: [{ x: [0, 0.02, 0], v: [0, 0, 0] }], floorVelocity: [8, 0, 0] },
};

/** The end state the step must have (the file's comment). */
function expected(scheme: Scheme, p: Particle): { x: Vec3; v: Vec3 } {
  const newmark = scheme === 'newmark';
  if (p.contact) {
    const gap = p.x[1] - (p.contact.y - H * p.contact.u);
    const vy = newmark ? p.contact.u : p.contact.u - gap / H;
    return { x: [p.x[0], p.contact.y, p.x[2]], v: [0, vy, 0] };
  }
  const dv = H * G;
  const dx = newmark ? 0.5 * H * H * G : H * H * G;
  return { x: [p.x[0] + H * p.v[0], p.x[1] + H * p.v[1] - dx, p.x[2] + H * p.v[2]], v: [p.v[0], p.v[1] - dv, p.v[2]] };
} // prettier-ignore

const CASES = (['implicit-euler', 'newmark', 'backward-euler'] as const).flatMap((scheme) =>
  BACKENDS.flatMap((backend) =>
    Object.keys(SCENARIOS)
      // WebGPU: every scheme on the static floor, implicit Euler on the moving ones.
      .filter((name) => backend === 'cpu' || scheme === 'implicit-euler' || name === 'static')
      .map((name) => [scheme, backend, name] as const),
  ),
);

test.each(CASES)('%s, %s, %s floor: only a particle whose normal approach closes its gap is constrained', async (scheme, backend, name) => {
  const { colliders, particles, floorVelocity } = SCENARIOS[name]!;
  const model = createModel({ positions: particles.flatMap((p) => p.x), velocities: particles.flatMap((p) => p.v), masses: particles.map(() => 0.1), springPairs: [], springStiffness: 0, colliders }); // prettier-ignore
  // No springs: the system is M with the contacts' rows filtered, diagonal, solved in an iteration or
  // two. CG capped at 12 (the default 200), which step() on WebGPU encodes whether it runs or not;
  // every solve converged is asserted below.
  const sim = await createSimulation(model, { integrator: scheme, dt: H, solver: 'cg', tolerance: 1e-6, maxIterations: 12, ...(backend === 'webgpu' ? { backend, device: node.runner() } : { backend }) }); // prettier-ignore
  try {
    if (floorVelocity) sim.setColliderPose!(0, { point: floorVelocity.map((u) => H * u) as [number, number, number] });
    sim.step(1);
    const { positions, velocities } = await sim.readState();
    expect((await sim.readSolverStats())!.unconvergedSolves).toBe(0);
    // float64 on the CPU: round-off; float32 on the GPU: ~1e-7 of the 1–8 m/s and 1–2 m involved.
    const [dx, dv] = backend === 'cpu' ? [1e-12, 1e-12] : [1e-6, 1e-5];
    particles.forEach((p, i) => {
      const want = expected(scheme, p);
      for (let d = 0; d < 3; d++) {
        const [x, v] = [positions[3 * i + d]!, velocities[3 * i + d]!];
        expect(Math.abs(x - want.x[d]!), `particle ${i} x[${d}] = ${x}, expected ${want.x[d]}`).toBeLessThan(dx);
        expect(Math.abs(v - want.v[d]!), `particle ${i} v[${d}] = ${v}, expected ${want.v[d]}`).toBeLessThan(dv);
      }
    });
  } finally {
    sim.destroy();
  }
}, 120_000); // prettier-ignore

test('the WGSL quick case "contact thresholds at their ties" ends its one step as derived (CPU, float64)', async () => {
  // test/helpers/wgsl-quick-cases.ts contactThresholds: h = 1/64 s, g = −8 m/s² along y, the
  // plane's contact surface at y = 1/16 m, every value exact. Free: v₊ = v + h g, y₊ = y + h v₊;
  // a contact ends on the surface at v_y = −gap/h; a free particle that ends behind the surface is
  // projected onto it after the solve, at rest along y (contact-programs.ts).
  const model = SCENES.thresholds();
  const sim = await createSimulation(model, { integrator: 'implicit-euler', dt: 1 / 64, solver: 'pcg', tolerance: 1e-5 }); // prettier-ignore
  sim.step(1);
  const { positions, velocities } = await sim.readState();
  const [h, surface, y0, v0] = [1 / 64, 1 / 16, model.particlePositions, model.particleVelocities];
  const free = (i: number) => {
    const [y, vy] = [y0[3 * i + 1]! + h * (v0[3 * i + 1]! - h * 8), v0[3 * i + 1]! - h * 8];
    return y < surface ? ([surface, 0] as const) : ([y, vy] as const);
  };
  const contact = (i: number) => [surface, -(y0[3 * i + 1]! - surface) / h] as const;
  // 0 moves away fast enough, 1 at f32's threshold (held), 2 on the surface moving away, 3 slides
  // 2⁻⁸ m above (free), 4 falls from 1 m, 5 approaches 2⁻⁷ + 2⁻¹⁰ m above (a contact at −0.5625 m/s).
  const want = [free(0), contact(1), free(2), free(3), free(4), contact(5)];
  expect(want[5]![1]).toBe(-0.5625);
  want.forEach(([y, vy], i) => {
    expect(Math.abs(positions[3 * i + 1]! - y), `particle ${i}: y = ${positions[3 * i + 1]}, expected ${y}`).toBeLessThan(1e-15); // prettier-ignore
    expect(Math.abs(velocities[3 * i + 1]! - vy), `particle ${i}: v_y = ${velocities[3 * i + 1]}, expected ${vy}`).toBeLessThan(1e-12); // prettier-ignore
  });
  sim.destroy();
});
