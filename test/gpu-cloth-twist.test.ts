/**
 * Newton's ClothTwist on WebGPU (issue 13; the CPU's is in test/self-contact-scenes.test.ts): the
 * side columns of a zero-gravity cloth turned π/3 rad/s each way by `setTargets`, implicit Euler at
 * h = 1/60, self-collision r = 3 mm, against the CPU in float32 and float64 (Node, Dawn; SwiftShader
 * here).
 *
 * Smaller than the CPU's 24², to fit SwiftShader: 12² (2 cm cells) for the same 180 steps (3 s, a
 * relative turn of 360°); ~65 s on a loaded 2-core VM (the GPU through advance()). It still winds
 * into contact: the middle meets itself from step ~75 (150°; the 24²'s from step ~63), and the GPU
 * lists pairs at every 10th step from step 80 (up to ~800), truncates up to ~40 moves a step, and
 * undoes moves with pairs frozen from step 110, as the CPU does.
 *
 * Two regimes, each with its own comparison:
 * - Before the trajectories separate. The flat twisted sheet buckles: from step ~30 rounding is
 *   amplified ×1.4 a step (the CPU f32 run leaves the f64 one: 2e-8 m at step 30, 1e-6 at 41, 4 mm
 *   by step 75). Both float32 runs round the same float64 trajectory, each leaving it by rounding
 *   that the same linearised dynamics amplify, so each is about ε_k = |CPU f32 − CPU f64|∞
 *   (running maximum) away from it, and |GPU − CPU f32| ≤ 2 ε_k by the triangle inequality, plus
 *   2 float32 ulps of |x|∞ (the floor while ε_k is one ulp). Checked at every step while
 *   ε_k ≤ 1e-6 m (0.005 % of a cell; steps 1–42 here: measured at most 0.72 of the bound).
 * - After, the runs wind into different folds (5 cm apart by step 100): physical invariants at
 *   every 10th step instead — no intersection (the exact triangle–triangle test on the CPU over
 *   the GPU's positions), no pinched pair, speeds below 1.5 m/s (the CPU test's), the columns at
 *   their targets, contacts active (pairs listed from step 80, moves truncated and undone), and the spring
 *   energy within the CPU f32/f64 pair's own spread of it, once more on each side (what rounding
 *   alone does to it in this scene, measured in the same run).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createSimulation, energy } from '../src/index.ts';
import { selfIntersections } from './helpers/self-intersection.ts';
import { clothTwist } from './helpers/self-contact-scenes.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => Object.assign(device, { uncaptured }));

afterEach(() => expect(node.runner().uncaptured.splice(0)).toEqual([]));

const N = 12;
const H = 1 / 60;
const STEPS = 180;
/** |CPU f32 − CPU f64|∞ (m) up to which the runs are compared step by step. */
const SEPARATED = 1e-6;
const OPTIONS = { integrator: 'implicit-euler', dt: H } as const;

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let most = 0;
  for (let k = 0; k < a.length; k++) most = Math.max(most, Math.abs(a[k]! - b[k]!));
  return most;
};

/** One float32 ulp at |x|. */
const ulp32 = (x: number): number => 2 ** (Math.floor(Math.log2(x)) - 23);

describe(`ClothTwist on WebGPU (${N}², implicit Euler, h = 1/60, ${STEPS} steps)`, () => {
  test('step by step within twice the CPU’s own float32 rounding until the runs separate; then no intersection, no pinch, speeds < 1.5 m/s, contacts active', async () => {
    const { model, sides, targets } = clothTwist(N);
    const gpu = await createSimulation(model, { ...OPTIONS, backend: 'webgpu', device: node.runner() }); // prettier-ignore
    const cpu = await createSimulation(model, { ...OPTIONS, backend: 'cpu', precision: 'f32' });
    const exact = await createSimulation(model, { ...OPTIONS, backend: 'cpu', precision: 'f64' });
    const lines: string[] = [];
    try {
      let [epsilon, window, worst, firstPairs, truncated, undone] = [0, 0, 0, 0, 0, 0];
      for (let step = 1; step <= STEPS; step++) {
        const target = targets(step * H);
        for (const sim of [gpu, cpu, exact]) sim.setTargets(sides, target);
        // The GPU steps through advance(), which skips what is left of a converged loop; step()
        // encodes every Newton and CG iteration up to the caps and ends bit-identically
        // (test/gpu-cg-dispatches.test.ts).
        await gpu.advance(1);
        cpu.step();
        exact.step();
        const [b, c] = [await cpu.readState(), await exact.readState()];
        epsilon = Math.max(epsilon, maxDiff(b.positions, c.positions));
        const tight = window === step - 1 && epsilon <= SEPARATED;
        const checked = step % 10 === 0;
        if (!tight && !checked) continue;
        const a = await gpu.readState();
        if (tight) {
          window = step;
          const scale = Math.max(...b.positions.map(Math.abs));
          const tolerance = 2 * epsilon + 2 * ulp32(scale);
          const dx = maxDiff(a.positions, b.positions);
          worst = Math.max(worst, dx / tolerance);
          expect(dx, `step ${step}: |GPU − CPU f32| ≤ 2 ε + 2 ulp`).toBeLessThanOrEqual(tolerance);
        }
        if (!checked) continue;
        expect(selfIntersections(a.positions, model.triangleIndices), `step ${step}`).toEqual([]);
        const [sa, sb] = [(await gpu.readSolverStats())!.selfContact!, (await cpu.readSolverStats())!.selfContact!]; // prettier-ignore
        expect(sa.pinched, `step ${step}`).toBe(0);
        const speeds = Array.from({ length: model.particleCount }, (_, i) => Math.hypot(a.velocities[3 * i]!, a.velocities[3 * i + 1]!, a.velocities[3 * i + 2]!)); // prettier-ignore
        expect(Math.max(...speeds), `step ${step}`).toBeLessThan(1.5);
        // The columns where setTargets put them (float32).
        const pinned = sides.flatMap((i) => [0, 1, 2].map((k) => a.positions[3 * i + k]!));
        expect(maxDiff(pinned, target), `step ${step}`).toBeLessThanOrEqual(2 * ulp32(0.5));
        const [ea, eb, ec] = [a, b, c].map((s) => energy(model, s.positions, s.velocities).spring);
        const [lo, hi] = [Math.min(eb!, ec!), Math.max(eb!, ec!)];
        const spread = hi - lo + 1e-4 * hi;
        expect(ea!, `step ${step}: spring energy`).toBeGreaterThanOrEqual(lo - spread);
        expect(ea!, `step ${step}: spring energy`).toBeLessThanOrEqual(hi + spread);
        if (sa.pairs > 0 && firstPairs === 0) firstPairs = step;
        if (step >= 80) expect(sa.pairs, `step ${step}: pairs listed`).toBeGreaterThan(0);
        truncated += sa.truncated;
        undone += sa.undone;
        lines.push(`step ${step}: pairs ${sa.pairs}/${sb.pairs}, truncated ${sa.truncated}/${sb.truncated}, undone ${sa.undone}/${sb.undone}, frozen ${sa.frozen}/${sb.frozen} (GPU/CPU f32); |GPU − CPU f32|∞ ${maxDiff(a.positions, b.positions).toExponential(1)} m; spring energy ${ea!.toFixed(3)} J (CPU f32 ${eb!.toFixed(3)}, f64 ${ec!.toFixed(3)})`); // prettier-ignore
      }
      console.log(`${lines.join('\n')}\nstep by step through step ${window} (|CPU f32 − f64| ≤ ${SEPARATED} m): |GPU − CPU f32| at most ${worst.toFixed(2)} of 2 ε + 2 ulp`); // prettier-ignore
      // The tight window reaches the buckling (step ~30), and contact came after it.
      expect(window).toBeGreaterThanOrEqual(30);
      expect(firstPairs).toBeGreaterThan(window);
      expect(truncated).toBeGreaterThan(0);
      expect(undone).toBeGreaterThan(0);
    } finally {
      gpu.destroy();
      cpu.destroy();
      exact.destroy();
    }
  }, 300_000);
});
