/**
 * Self-collision on the CPU (src/backends/cpu/self-contact.ts, self-fail-safe.ts; design
 * reports/design/self-collision.md phase 1): the pairs' force against the derivative of their
 * energy, the system's diagonal against its product, the fail-safe against a vertex shot through a
 * triangle, and scenes checked by the exact triangle–triangle test (test/helpers/self-intersection.ts).
 */
import { describe, expect, it } from 'vitest';
import type { WeftError } from '../src/index.ts';
import {
  buildCloth,
  createModel,
  createSimulation,
  parseScene,
  withSelfCollision,
  type Model,
} from '../src/index.ts';
import { CpuSelfContact } from '../src/internal.ts';
import { selfIntersections } from './helpers/self-intersection.ts';
import { pileUp, vertexOntoPinnedTriangle } from './helpers/self-contact-scenes.ts';

/** Two triangles: (0, 1, 2) flat at y = 0, (3, 4, 5) with vertex 3 at `gap` above (0.3, 0, 0.3). */
function twoTriangles(
  gap: number,
  velocity = 0,
  selfCollision: { thickness: number; stiffness: number; damping?: number } | null = {
    thickness: 0.2,
    stiffness: 500,
  },
  fixed: number[] = [],
): Model {
  const positions = [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.3, gap, 0.3, 0.3, gap + 0.2, 1.3, 1.3, gap + 0.2, 0.3];
  const velocities = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, velocity, 0, 0, velocity, 0, 0, velocity, 0];
  return trianglePair(positions, velocities, fixed, selfCollision);
}

/** Triangles (0, 1, 2) and (3, 4, 5), unit masses, their edges springs of stiffness 0, no gravity. */
function trianglePair(
  positions: number[],
  velocities: number[],
  fixed: number[],
  selfCollision: { thickness: number; stiffness: number; damping?: number } | null,
): Model {
  return createModel({
    positions,
    velocities,
    masses: [1, 1, 1, 1, 1, 1],
    springPairs: [0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3],
    springStiffness: 0,
    gravity: [0, 0, 0],
    triangles: [0, 1, 2, 3, 4, 5],
    fixed,
    ...(selfCollision ? { selfCollision } : {}),
  });
}

/** E = Σ ½ k (r − d)² over the listed pairs with d < r, at x. */
function pairEnergy(contact: CpuSelfContact, x: Float64Array): number {
  const { thickness: r, stiffness: k } = contact.self;
  let sum = 0;
  for (let e = 0; e < contact.count; e++) {
    const d = contact.pairGeometry(x, e);
    if (d < r) sum += 0.5 * k * (r - d) ** 2;
  }
  return sum;
}

/**
 * The edge–edge pair of edges (0, 1) and (3, 4) in triangles (0, 1, 2) and (3, 4, 5) at
 * `positions` (no forces but self-collision's, thickness r), detected at rest: asserts it is listed.
 */
function edgeEdgePair(positions: number[], thickness: number) {
  const model = createModel({
    positions,
    masses: [1, 1, 1, 1, 1, 1],
    springPairs: [0, 1],
    springStiffness: 0,
    gravity: [0, 0, 0],
    triangles: [0, 1, 2, 3, 4, 5],
    selfCollision: { thickness, stiffness: 200 },
  });
  const contact = new CpuSelfContact(model, (n) => new Float64Array(n));
  const x = Float64Array.from(model.particlePositions);
  contact.detect(x, new Float64Array(x.length), 1 / 60);
  const particles = (e: number): number[] => Array.from(contact.indices.subarray(4 * e, 4 * e + 4)).sort();
  const ee = Array.from({ length: contact.count }, (_, e) => e).find(
    (e) => contact.pairs.kinds[e] === 1 && particles(e).join() === '0,1,3,4',
  );
  expect(ee).toBeDefined();
  return { contact, x, ee: ee! };
}

/** The pair's normal where edge (3, 4) at `edge` (six coordinates) meets edge (0, 1) (d = 0). */
function edgeEdgeNormalAtZero(edge: readonly number[]): number[] {
  const { contact, x, ee } = edgeEdgePair([-0.5, 0, 0, 0.5, 0, 0, 0, 0, -1, ...edge, 0.5, 0.5, -0.5], 0.1);
  expect(contact.pairGeometry(x, ee)).toBe(0);
  return Array.from(contact.normal);
}

/**
 * One symplectic-Euler step of 1/60 s of triangles (0, 1, 2) and (3, 4, 5) with no force but
 * self-collision's (no springs' stiffness, no gravity): with d₀ > r every move is h u, then the
 * fail-safe's. `fixed`: pinned particles; `thickness`: r.
 */
async function stepTwoTriangles(
  positions: number[],
  velocities: number[],
  fixed: number[],
  thickness: number,
) {
  const model = trianglePair(positions, velocities, fixed, { thickness, stiffness: 1000 });
  const simulation = await createSimulation(model, {
    integrator: 'symplectic-euler',
    dt: 1 / 60,
    backend: 'cpu',
  });
  try {
    simulation.step();
    const state = await simulation.readState();
    return { model, ...state, stats: (await simulation.readSolverStats())!.selfContact! };
  } finally {
    simulation.destroy();
  }
}

describe('self-contact pairs (CPU)', () => {
  it('the force F g_j is −∂E/∂x_j, E = ½ k (r − d)², to central differences (VT and EE pairs)', () => {
    const model = twoTriangles(0.08);
    const contact = new CpuSelfContact(model, (n) => new Float64Array(n));
    const x = Float64Array.from(model.particlePositions);
    const v = new Float64Array(x.length);
    contact.detect(x, v, 1 / 60);
    const kinds = Array.from(contact.pairs.kinds.subarray(0, contact.count));
    expect(kinds).toContain(0);
    contact.states(x, v, false, true);
    expect(contact.stats.activePairs).toBeGreaterThan(0);
    const force = new Float64Array(x.length);
    contact.gather(force, false);
    const step = 1e-6;
    for (let k = 0; k < x.length; k++) {
      const [plus, minus] = [Float64Array.from(x), Float64Array.from(x)];
      plus[k]! += step;
      minus[k]! -= step;
      const derivative = (pairEnergy(contact, plus) - pairEnergy(contact, minus)) / (2 * step);
      expect(force[k]!).toBeCloseTo(-derivative, 6);
    }
  });

  it('an edge crossing close above another gives an EE pair whose force is −∂E/∂x', () => {
    // Edge (0, 1) along x at y = 0; edge (3, 4) along z at y = 0.1 above its middle.
    const positions = [-0.5, 0, 0, 0.5, 0, 0, 0, 0, -1, 0, 0.1, -0.5, 0, 0.1, 0.5, 0, 1.1, 0];
    const { contact, x, ee } = edgeEdgePair(positions, 0.3);
    expect(contact.pairGeometry(x, ee)).toBeCloseTo(0.1, 12);
    contact.states(x, new Float64Array(x.length), false, true);
    const force = new Float64Array(x.length);
    contact.gather(force, false);
    for (let k = 0; k < x.length; k++) {
      const [plus, minus] = [Float64Array.from(x), Float64Array.from(x)];
      plus[k]! += 1e-6;
      minus[k]! -= 1e-6;
      expect(force[k]!).toBeCloseTo(-(pairEnergy(contact, plus) - pairEnergy(contact, minus)) / 2e-6, 6);
    }
  });

  it('explicit activation is d < r: listed pairs farther than r give no force, even with damping and an approach', () => {
    // Vertex 3 at 0.15 above the first triangle, approaching at 1 m/s; r = 0.1: listed (within
    // r + its reach 2h|v| + r/2), not active, so neither k (r − d) nor −c (g·v) acts.
    const model = twoTriangles(0.15, -1, { thickness: 0.1, stiffness: 500, damping: 5 });
    const contact = new CpuSelfContact(model, (n) => new Float64Array(n));
    const x = Float64Array.from(model.particlePositions);
    const v = Float64Array.from(model.particleVelocities);
    contact.detect(x, v, 1 / 60);
    expect(contact.count).toBeGreaterThan(0);
    contact.states(x, v, false, true);
    expect(contact.stats.activePairs).toBe(0);
    const force = new Float64Array(x.length);
    contact.gather(force, false);
    expect(Array.from(force)).toEqual(new Array(x.length).fill(0));
  });

  it('edges crossing at a point (d = 0 now and at the start, e₁ × e₂ ≠ 0): the normal is e₁ × e₂ normalised', () => {
    // Edge (0, 1) along x at y = 0, edge (3, 4) along (0, 1, 1) through the origin: they cross there.
    // n = e₁ × e₂ = (1, 0, 0) × (0, 0.5, 0.5) = (0, −0.5, 0.5); its side is 0, so the sign is +.
    const normal = edgeEdgeNormalAtZero([0, -0.25, -0.25, 0, 0.25, 0.25]);
    [0, -Math.SQRT1_2, Math.SQRT1_2].forEach((value, k) => expect(normal[k]!).toBeCloseTo(value, 14));
  });

  it('coincident parallel edges (d = 0 now and at the start, e₁ × e₂ = 0): the normal falls back to +y, as in self-pair-common.wgsl', () => {
    // Edge (3, 4) lies on edge (0, 1) (both along x at y = 0): no closest-point direction, no cross product.
    expect(edgeEdgeNormalAtZero([-0.25, 0, 0, 0.25, 0, 0])).toEqual([0, 1, 0]);
  });

  it('the diagonal blocks (addDiagonal) are those of the product (productTerms) applied to unit vectors', () => {
    const model = twoTriangles(0.05);
    const contact = new CpuSelfContact(model, (n) => new Float64Array(n));
    const x = Float64Array.from(model.particlePositions);
    contact.detect(x, new Float64Array(x.length), 1 / 60);
    contact.states(x, new Float64Array(x.length), true, false);
    const system = { mass: 0, damping: 0.3, stiffness: 0.7 };
    for (let i = 0; i < model.particleCount; i++) {
      const block = new Float64Array(6);
      contact.addDiagonal(system, i, block);
      const column = (c: number): number[] => {
        const u = new Float64Array(3 * model.particleCount);
        u[3 * i + c] = 1;
        contact.productTerms(system, u);
        const y = new Float64Array(u.length);
        contact.gather(y, false);
        return [y[3 * i]!, y[3 * i + 1]!, y[3 * i + 2]!];
      };
      const [cx, cy, cz] = [column(0), column(1), column(2)];
      if (model.particleInvMass[i] === 0) continue;
      const expected = [cx[0]!, cy[1]!, cz[2]!, cy[0]!, cz[0]!, cz[1]!];
      expected.forEach((value, k) => expect(block[k]!).toBeCloseTo(value, 12));
    }
  });
});

describe('self-collision fail-safe (CPU)', () => {
  for (const integrator of ['symplectic-euler', 'implicit-euler'] as const) {
    it(`${integrator}: a vertex shot at 50 m/s through a triangle in one step stops above it`, async () => {
      // Triangle (0, 1, 2) pinned; triangle (3, 4, 5) falls at 50 m/s, vertex 3 above its inside.
      const crossed = await run(twoTriangles(0.05, -50, null, [0, 1, 2]), integrator, 1);
      expect(crossed.positions[3 * 3 + 1]!).toBeLessThan(0); // without self-collision it passes through
      const model = twoTriangles(0.05, -50, { thickness: 0.02, stiffness: 1000 }, [0, 1, 2]);
      const simulation = await createSimulation(model, { integrator, dt: 1 / 60, backend: 'cpu' });
      simulation.step();
      const state = await simulation.readState();
      expect(state.positions[3 * 3 + 1]!).toBeGreaterThan(0);
      expect(selfIntersections(state.positions, model.triangleIndices)).toEqual([]);
      const stats = (await simulation.readSolverStats())!.selfContact!;
      expect(stats.truncated).toBeGreaterThanOrEqual(1);
      expect(stats.frozen).toBe(0);
    });
  }

  it('a triangle with a pinned corner keeps the room it moves: the plane sits at δ_B / 0.85 of the gap from it, its free corners move their whole way', async () => {
    // Triangle B = (0, 1, 2) at y = 0, corner 0 pinned, corners 1 and 2 rising at 1.8 m/s; vertex 3
    // of triangle A at d₀ = 0.1 above B's inside, A falling at 6 m/s (h = 1/60: B's corners rise
    // δ_B = 0.03 m, A falls δ_A = 0.1 m). One listed pair (3 against B), n̂ = +y. Split by the
    // approaches, the plane would sit at λ = δ_B / (δ_A + δ_B) = 0.23 of d₀ above B; a pinned side is
    // not truncated, so it sits at δ_B / (0.85 d₀) = 0.353 of d₀ instead (design §4): B's corners'
    // whole move is 0.85 of their way to it (so they keep it), and vertex 3 moves 0.85 of its way
    // to the plane, 0.85 (d₀ − δ_B / 0.85) = 0.055 m.
    const [d0, h] = [0.1, 1 / 60];
    const [uA, uB] = [-6, 1.8];
    const { model, positions, velocities, stats } = await stepTwoTriangles(
      [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.3, d0, 0.3, 0.3, d0 + 0.2, 1.3, 1.3, d0 + 0.2, 0.3],
      [0, 0, 0, 0, uB, 0, 0, uB, 0, 0, uA, 0, 0, uA, 0, 0, uA, 0],
      [0],
      0.02,
    );
    const [deltaA, deltaB] = [-uA * h, uB * h];
    expect(stats.pairs).toBe(1);
    expect(stats.truncated).toBe(1); // vertex 3 only
    expect(stats.pinched).toBe(0);
    for (const i of [1, 2]) {
      expect(positions[3 * i + 1]!).toBeCloseTo(deltaB, 12);
      expect(velocities[3 * i + 1]!).toBe(uB);
    }
    const t = (0.85 * (d0 - deltaB / 0.85)) / deltaA; // the share of its move vertex 3 keeps
    expect(positions[3 * 3 + 1]!).toBeCloseTo(d0 - t * deltaA, 12); // 0.045
    expect(velocities[3 * 3 + 1]!).toBeCloseTo(t * uA, 12);
    expect(selfIntersections(positions, model.triangleIndices)).toEqual([]);
  });

  it('a vertex whose move is 526× its room to a pinned triangle keeps τ − 1e-3 of it, not 0.85 τ', async () => {
    // Triangle B = (0, 1, 2) pinned at y = 0; triangle A small and above B's inside, its vertex 3 at
    // d₀ = 2 mm, its other corners 0.2 m higher, all falling at 60 m/s (h = 1/60: δ_A = 1 m). The
    // plane of pair (3, B) sits at λ d₀ above B, λ = max(0.05, δ_B / (δ_A + δ_B)) = 0.05 (δ_B = 0),
    // so vertex 3's room is 0.95 d₀ and τ = 0.95 d₀ / δ_A = 1.9e-3: its move is shortened to
    // max(0, min(0.85 τ, τ − 1e-3)) = 0.9e-3 of itself (self-fail-safe.ts), y = d₀ − 0.9 mm,
    // v = 0.9e-3 u. (0.85 τ alone would leave it 0.385 mm above B.)
    const [d0, h, u] = [0.002, 1 / 60, -60];
    const { positions, velocities } = await stepTwoTriangles(
      [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2, d0, 0.2, 0.35, d0 + 0.2, 0.2, 0.2, d0 + 0.2, 0.35],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, u, 0, 0, u, 0, 0, u, 0],
      [0, 1, 2],
      0.0005,
    );
    const t = (0.95 * d0) / (-u * h) - 1e-3;
    expect(positions[3 * 3 + 1]!).toBeCloseTo(d0 + t * u * h, 12);
    expect(velocities[3 * 3 + 1]!).toBeCloseTo(t * u, 9);
  });

  it('a pile-up the first 8 sweeps cannot settle: the sweeps that follow stop only the particles they shorten, a triangle far away still moves h v', async () => {
    // 12 free triangles 5 cm apart above a pinned one, all falling at 5 m/s (8.3 cm a step at
    // h = 1/60): each sweep's shortened moves list the next layer's pairs, so the 8 sweeps of the
    // first pass end unsettled and the second pass (shortened particles stay at x₀) runs. A 14th
    // triangle 10 m away moves at 1 m/s along x, in no pair: it keeps its move x₀ + h v unless
    // every sweep fails and every free particle is undone.
    const model = pileUp(true);
    const n = model.particleCount;
    for (const integrator of ['symplectic-euler', 'implicit-euler'] as const) {
      const simulation = await createSimulation(model, { integrator, dt: 1 / 60, backend: 'cpu' });
      simulation.step();
      const state = await simulation.readState();
      const stats = (await simulation.readSolverStats())!.selfContact!;
      // The case reaches the second pass (> 8 sweeps) and settles there (< 16).
      expect(stats.sweeps, integrator).toBeGreaterThan(8);
      expect(stats.sweeps, integrator).toBeLessThan(16);
      for (const i of [n - 3, n - 2, n - 1]) {
        expect(state.positions[3 * i]! - model.particlePositions[3 * i]!, integrator).toBeCloseTo(1 / 60, 14);
        expect(state.velocities[3 * i]!, integrator).toBe(1);
      }
      expect(stats.undone, integrator).toBeLessThanOrEqual(3 * 12); // stack particles only
      expect(selfIntersections(state.positions, model.triangleIndices)).toEqual([]);
      simulation.destroy();
    }
  });
});

async function run(model: Model, integrator: 'symplectic-euler' | 'implicit-euler', steps: number) {
  const simulation = await createSimulation(model, { integrator, dt: 1 / 60, backend: 'cpu' });
  simulation.step(steps);
  return simulation.readState();
}

describe('self-collision fail-safe with a multistep history (CPU)', () => {
  // vertexOntoPinnedTriangle: the fail-safe shortens vertex 3's move at steps 4–7. The scheme's
  // velocity history is restarted there (every Fv entry its shortened v) and F(y₊) is pushed after
  // the fail-safe, so AB's next x₊ = x + h Σ β_j v = x + h v (Σ β_j = 1) exactly, and the force
  // pushed is the repulsion where the vertex is, above the triangle. Before, AB2's history kept
  // the untruncated moves and the force beyond the triangle (which points down): the vertex rose
  // 2.9 cm at step 7 with a velocity of −0.036 m/s, and drifted back down at that speed through
  // step 30. Symplectic Euler leaves at 0.59 m/s; AB2 0.71, AB3 0.65.
  for (const integrator of ['adams-bashforth-2', 'adams-bashforth-3'] as const) {
    it(`${integrator}: the step after the fail-safe's last truncation moves h v exactly, and the repulsion pushes the vertex back out`, async () => {
      const h = 1 / 60;
      const simulation = await createSimulation(vertexOntoPinnedTriangle(), { integrator, dt: h, backend: 'cpu' }); // prettier-ignore
      let before = await simulation.readState();
      const checked: number[] = [];
      let truncatedBefore = 0;
      for (let step = 1; step <= 14; step++) {
        simulation.step();
        const state = await simulation.readState();
        const { truncated, undone } = (await simulation.readSolverStats())!.selfContact!;
        expect(state.positions[3 * 3 + 1]!, `step ${step}: vertex 3 above the triangle`).toBeGreaterThan(0); // prettier-ignore
        if (truncatedBefore > 0 && truncated === 0 && undone === 0) {
          // y₊ − y = h v_y to rounding (|y| ≤ 0.1 m here, float64).
          const move = state.positions[3 * 3 + 1]! - before.positions[3 * 3 + 1]!;
          expect(Math.abs(move - h * before.velocities[3 * 3 + 1]!), `step ${step}`).toBeLessThan(1e-15); // prettier-ignore
          checked.push(step);
        }
        [before, truncatedBefore] = [state, truncated];
      }
      expect(checked, 'steps right after a truncation').toEqual([8]);
      // Pushed out: beyond r = 0.02 m and moving away at over half the symplectic Euler's 0.59 m/s.
      expect(before.positions[3 * 3 + 1]!).toBeGreaterThan(0.02);
      expect(before.velocities[3 * 3 + 1]!).toBeGreaterThan(0.3);
    });
  }
});

describe('self-collision options', () => {
  it('defaults: r = min(5 mm, 0.2 ℓ_min), k = the largest spring stiffness, 32 pairs per particle; null removes it', () => {
    const model = withSelfCollision(buildCloth({ nx: 4, ny: 4, spacing: 0.02, structuralStiffness: 700, shearStiffness: 900, bendStiffness: 300 }), {}); // prettier-ignore
    expect(model.selfCollision!.thickness).toBeCloseTo(0.004, 15);
    expect(model.selfCollision!.stiffness).toBe(900);
    expect(model.selfCollision!.maxPairsPerParticle).toBe(32);
    expect(withSelfCollision(model, null).selfCollision).toBeNull();
  });

  it('a scene file takes "selfCollision", checked by name and type', () => {
    const scene = {
      cloth: { nx: 4, ny: 4, spacing: 0.1 },
      selfCollision: { thickness: 0.01, stiffness: 100 },
    };
    expect(parseScene(scene).selfCollision!.thickness).toBe(0.01);
    expect(() => parseScene({ ...scene, selfCollision: { thickness: '1' } })).toThrow(
      /selfCollision.thickness/,
    );
    expect(() => parseScene({ ...scene, selfCollision: { radius: 1 } })).toThrow(/selfCollision/);
  });

  it('more pairs than maxPairsPerParticle × n is an error naming it (exit status 4), not a silent drop', async () => {
    const model = twoTriangles(0.05, 0, { thickness: 0.2, stiffness: 10 });
    const tight = withSelfCollision(model, { thickness: 0.2, maxPairsPerParticle: 0.1 });
    const simulation = await createSimulation(tight, {
      integrator: 'symplectic-euler',
      dt: 1 / 60,
      backend: 'cpu',
    });
    const error = (() => { try { simulation.step(); } catch (e) { return e; } })() as WeftError; // prettier-ignore
    expect(error.code).toBe('capacity');
    expect(error.field).toBe('selfCollision.maxPairsPerParticle');
  });
});
