/**
 * Kinematic colliders on the CPU (issue 13, setColliderPose): a particle resting on a plane that
 * moves up at u rides on it at the thickness with velocity u (analytic); a particle on a box that
 * slides sideways at s is carried (μ large), left where it is (μ = 0), or slips with the
 * acceleration μ g until it moves at s (Coulomb, analytic); bad poses are refused naming the field.
 */
import { describe, expect, test } from 'vitest';
import {
  createModel,
  createSimulation,
  WeftInputError,
  type Collider,
  type Simulation,
} from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';

const THICKNESS = 0.01;

/** One free particle of 0.1 kg at `at`, at rest, and `colliders`. */
function particleOn(at: readonly number[], colliders: readonly Collider[]) {
  return createModel({ positions: at, masses: [0.1], springPairs: [], springStiffness: 0, colliders });
}

/** `calls` calls of step(stepsPerCall), the collider given pose(t) at each call's end time t first. */
function drive(sim: Simulation, calls: number, stepsPerCall: number, pose: (t: number) => object, each?: (t: number) => Promise<void>) {
  return (async () => {
    for (let c = 1; c <= calls; c++) {
      const t = c * stepsPerCall * sim.dt;
      sim.setColliderPose!(0, pose(t));
      sim.step(stepsPerCall);
      await each?.(t);
    }
  })();
} // prettier-ignore

describe.each([
  ['implicit-euler', 1 / 60],
  ['symplectic-euler', 1 / 240],
] as const)('%s', (integrator, dt) => {
  test.each([1, 4])(
    'a particle resting on a plane moving up at 0.5 m/s rides on it at the thickness, moving with it (%i steps per call)',
    async (stepsPerCall) => {
      const u = 0.5;
      const model = particleOn([0, THICKNESS, 0], [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }]); // prettier-ignore
      const sim = await createSimulation(model, { integrator, dt });
      let worst = 0;
      await drive(sim, 24, stepsPerCall, (t) => ({ point: [0, u * t, 0] }), async (t) => {
        const { positions, velocities } = await sim.readState();
        // The plane's height is u t: the particle at u t + thickness, moving up at u.
        worst = Math.max(worst, Math.abs(positions[1]! - (u * t + THICKNESS)), Math.abs(velocities[1]! - u));
      }); // prettier-ignore
      // Both schemes land a contact exactly on the moved surface (g + h (v₊ − u)·n = 0): round-off.
      expect(worst).toBeLessThan(1e-12);
      sim.destroy();
    },
  );

  // Moving down at 0.5 m/s, slower than the particle would fall after 0.05 s: gravity keeps it
  // pressed on the plane, and each step ends it on the plane's moved surface (n·v₊ = u·n).
  test('a particle resting on a plane moving down at 0.5 m/s rides down on it at the thickness', async () => {
    const u = -0.5;
    const model = createModel({ positions: [0, THICKNESS, 0], velocities: [0, u, 0], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }] }); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt });
    let worst = 0;
    await drive(sim, 24, 1, (t) => ({ point: [0, u * t, 0] }), async (t) => {
      const { positions, velocities } = await sim.readState();
      worst = Math.max(worst, Math.abs(positions[1]! - (u * t + THICKNESS)), Math.abs(velocities[1]! - u));
    }); // prettier-ignore
    // Round-off, as riding up (a step lost to free fall would put it h² g = 2.7 mm inside at 1/60 s).
    expect(worst).toBeLessThan(1e-12);
    sim.destroy();
  });

  // A box 4 m wide whose top face is y = 0, sliding along x at s; the particle rests on its top.
  const sliding = async (friction: number, seconds: number) => {
    const s = 1;
    const model = particleOn([0, THICKNESS, 0], [{ shape: 'box', center: [0, -0.5, 0], halfExtents: [2, 0.5, 2], friction, thickness: THICKNESS }]); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt });
    await drive(sim, Math.round(seconds / dt), 1, (t) => ({ center: [s * t, -0.5, 0] }));
    const state = await sim.readState();
    sim.destroy();
    return { s, x: state.positions[0]!, vx: state.velocities[0]!, y: state.positions[1]! };
  };

  test('μ = 50: the particle is carried with the box from the first step', async () => {
    const { s, x, vx, y } = await sliding(50, 0.5);
    // Friction removes up to μ g h = 8 m/s (implicit) or 2 m/s per step of the 1 m/s slip: it sticks at once.
    expect(Math.abs(x - s * 0.5)).toBeLessThan(1e-9);
    expect(Math.abs(vx - s)).toBeLessThan(1e-9);
    expect(Math.abs(y - THICKNESS)).toBeLessThan(1e-9);
  });

  test('μ = 0: the box slides away under the particle, which stays where it was', async () => {
    const { x, vx, y } = await sliding(0, 0.5);
    expect(Math.abs(x)).toBeLessThan(1e-12);
    expect(Math.abs(vx)).toBeLessThan(1e-12);
    expect(Math.abs(y - THICKNESS)).toBeLessThan(1e-9);
  });

  test('μ = 0.2: the particle slips with the acceleration μ g until it moves at the box speed', async () => {
    const mu = 0.2;
    const T = 1;
    const { s, x, vx } = await sliding(mu, T);
    // Coulomb: a = μ g while the particle is slower than the box, reached at t* = s / (μ g).
    const tStar = s / (mu * 9.81);
    const expected = 0.5 * mu * 9.81 * tStar * tStar + s * (T - tStar);
    expect(Math.abs(vx - s)).toBeLessThan(1e-9);
    // First-order schemes: the slip phase is off by about a step's travel.
    expect(Math.abs(x - expected)).toBeLessThan(2 * s * dt);
  });
});

test('a pose set before step(0) is reached over the next call that takes steps, not at the empty call', async () => {
  // The plane is set 0.2 m up, then step(0) (no time passes), then step(4): over those 4 steps it
  // moves at u = 0.2 / (4 h), carrying the particle resting on it (as the plane test above, with
  // 4 steps per call). Reaching the pose in the empty call instead would leave a plane that does
  // not move (u = 0) 0.2 m above the particle at the start of step(4), the particle pushed up to
  // it in one step.
  const dt = 1 / 60;
  const model = particleOn([0, THICKNESS, 0], [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }]); // prettier-ignore
  const sim = await createSimulation(model, { integrator: 'implicit-euler', dt });
  sim.setColliderPose!(0, { point: [0, 0.2, 0] });
  sim.step(0);
  sim.step(4);
  const { positions, velocities } = await sim.readState();
  // At the end of step(4) the plane is at 0.2 m, moving at u: the particle on it, moving with it.
  const u = 0.2 / (4 * dt);
  expect(Math.abs(positions[1]! - (0.2 + THICKNESS))).toBeLessThan(1e-12);
  expect(Math.abs(velocities[1]! - u)).toBeLessThan(1e-12);
  sim.destroy();
});

test('a capsule moving sideways carries a particle resting on its middle with the velocity of that point', async () => {
  const dt = 1 / 60;
  const model = particleOn([0, 0.1 + THICKNESS, 0], [{ shape: 'capsule', a: [-1, 0, 0], b: [1, 0, 0], radius: 0.1, friction: 50, thickness: THICKNESS }]); // prettier-ignore
  const sim = await createSimulation(model, { integrator: 'implicit-euler', dt });
  // The end a stays, b moves along z at 1 m/s: the middle moves at 0.5 m/s (and the capsule turns).
  await drive(sim, 6, 1, (t) => ({ b: [1, 0, t] }));
  const { positions, velocities } = await sim.readState();
  expect(velocities[2]).toBeGreaterThan(0.45);
  expect(velocities[2]).toBeLessThan(0.55);
  const x = [positions[0]!, positions[1]!, positions[2]!] as const;
  const capsule = { ...model.colliders[0]!, q: [1, 0, 6 * dt] as const };
  expect(colliderDistance(capsule, x).distance).toBeGreaterThan(THICKNESS - 1e-6);
  sim.destroy();
});

test('a capsule along z turning about its end a carries a particle resting at t = 0.75 of its length at 0.75 of b’s velocity', async () => {
  const dt = 1 / 60;
  // a = (0, 0, −1), b = (0, 0, 1); the particle on top at z = 0.5: t = (x − a)·(b − a)/|b − a|² = 0.75.
  const model = particleOn([0, 0.1 + THICKNESS, 0.5], [{ shape: 'capsule', a: [0, 0, -1], b: [0, 0, 1], radius: 0.1, friction: 50, thickness: THICKNESS }]); // prettier-ignore
  const sim = await createSimulation(model, { integrator: 'implicit-euler', dt });
  // b moves along x at 1 m/s: the surface point under the particle at (1 − t)·0 + t·1 = 0.75 m/s.
  await drive(sim, 6, 1, (t) => ({ b: [t, 0, 1] }));
  const { velocities } = await sim.readState();
  expect(velocities[0]).toBeGreaterThan(0.7);
  expect(velocities[0]).toBeLessThan(0.8);
  sim.destroy();
});

describe('setColliderPose validation', () => {
  const model = particleOn([0, 1, 0], [{ shape: 'sphere', center: [0, 0, 0], radius: 0.5 }, { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] }]); // prettier-ignore
  test.each([
    ['index', 2, { center: [0, 0, 0] }, /out of range \[0, 1\]/],
    ['index', 0.5, { center: [0, 0, 0] }, /out of range/],
    ['pose', 0, null, /must be an object/],
    ['pose.center[1]', 0, { center: [0, Number.NaN, 0] }, /finite number, got NaN/],
    ['pose.center', 0, { center: [0, 0] }, /three finite numbers/],
    ['pose.radius', 0, { radius: 2 }, /not a pose field of collider 0, a sphere \(its pose fields: center\)/],
    ['pose.center', 1, { center: [0, 0, 0] }, /a plane \(its pose fields: point, normal\)/],
    ['pose.normal', 1, { normal: [0, 0, 0] }, /zero vector/],
    ['pose.point[2]', 1, { point: [0, 0, Infinity] }, /finite number, got Infinity/],
  ] as const)('names %s', async (field, index, pose, message) => {
    const sim = await createSimulation(model, { integrator: 'symplectic-euler', dt: 0.01 });
    const call = () => sim.setColliderPose!(index, pose as never);
    expect(call).toThrow(WeftInputError);
    expect(call).toThrow(message);
    try {
      call();
    } catch (e) {
      expect((e as WeftInputError).field).toBe(field);
    }
    sim.destroy();
  });

  test('after destroy() it is refused as every call is', async () => {
    const sim = await createSimulation(model, { integrator: 'symplectic-euler', dt: 0.01 });
    sim.destroy();
    expect(() => sim.setColliderPose!(0, { center: [0, 0, 0] })).toThrow(/setColliderPose\(\).*destroy/);
  });

  test('a model without colliders says so', async () => {
    const sim = await createSimulation(particleOn([0, 1, 0], []), {
      integrator: 'symplectic-euler',
      dt: 0.01,
    });
    expect(() => sim.setColliderPose!(0, { center: [0, 0, 0] })).toThrow(/the model has no colliders/);
  });
});
