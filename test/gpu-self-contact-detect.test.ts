/**
 * Self-collision detection on WebGPU (Node, SwiftShader; design reports/design/self-collision.md
 * §2, §3, phase 2): the generic prefix scan; the pair lists and incidence of crumpled and folded
 * cloths against a CPU reference in float64 on the float32 states; determinism under another cell
 * size, table size and reversed thread order; the capacity and query-box errors.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { runSelfScan } from '../src/internal.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => Object.assign(device, { uncaptured }));

afterEach(() => expect(node.runner().uncaptured.splice(0)).toEqual([]));

/** Deterministic uniform [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('prefix scan (self-scan.wgsl, self-scan-add.wgsl)', () => {
  test.each([
    [1, 1],
    [255, 1],
    [256, 3],
    [257, 3],
    [5000, 3],
    [65535, 3],
    [65536, 5],
    [70001, 5],
  ])(
    '%d entries: exclusive sums and the total, in %d dispatches',
    async (count, dispatches) => {
      const next = random(count);
      const values = Uint32Array.from({ length: count }, () => Math.floor(next() * 9));
      const expected = new Uint32Array(count + 1);
      for (let k = 0; k < count; k++) expected[k + 1] = expected[k]! + values[k]!;
      const result = await runSelfScan(node.runner(), values);
      expect(result.dispatches).toBe(dispatches);
      expect(result.sums).toEqual(expected);
    },
    60_000,
  );

  test('other workgroup sizes (4, 32): the same sums', async () => {
    const values = Uint32Array.from({ length: 3000 }, (_, k) => (k * 7919) % 13);
    const expected = new Uint32Array(3001);
    for (let k = 0; k < 3000; k++) expected[k + 1] = expected[k]! + values[k]!;
    for (const size of [4, 32])
      expect((await runSelfScan(node.runner(), values, size)).sums).toEqual(expected);
  }, 60_000);
});
