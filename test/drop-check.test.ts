/**
 * Smoke test of `npm run check:drop` (bench/drop-check.mjs) on an 8² cloth for 30 steps, against
 * the built bundle (`npm test` builds first): the cloth is still moving then, so the check fails
 * naming why, with status 1; with the rest limits lifted the same run passes, status 0, and prints
 * its figures (penetration, energy at rest, contact cost).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, '..', 'bench', 'drop-check.mjs');
const TINY = ['--sizes', '8', '--steps', '30', '--rest', '10'];

describe('check:drop (bench/drop-check.mjs), 8² for 30 steps', () => {
  test('a cloth not yet at rest fails the check, status 1, naming how far it moved', async () => {
    const failed = await run('node', [SCRIPT, ...TINY]).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/8² CPU f64 \(64 particles, \d+ s\): FAILED/);
    expect(failed?.stdout).toMatch(/✗ not at rest: the particles moved \d+\.\d+ mm rms over the resting part \(limit 2 mm\)/); // prettier-ignore
    expect(failed?.stderr).toMatch(/check:drop FAILED: 8² CPU f64 \(not at rest/);
    // The checks that hold already: no particle inside the sphere, no intersection.
    expect(failed?.stdout).toMatch(/final frame: 0 particles inside the sphere/);
    expect(failed?.stdout).toMatch(/0 intersecting triangle pairs/);
  }, 60_000);

  test('with the rest limits lifted it passes, status 0, and prints its figures', async () => {
    const { stdout } = await run('node', [SCRIPT, ...TINY, '--rest-move', '10', '--rest-drift', '10', '--drift', '10']); // prettier-ignore
    expect(stdout).toMatch(/8² CPU f64 \(64 particles, \d+ s\): ok/);
    expect(stdout).toMatch(/deepest in the run: .* into its shell/);
    expect(stdout).toMatch(/energy at rest: [\d.]+ → [\d.]+ J, trend [-+][\d.e+-]+ J over the part/);
    expect(stdout).toMatch(/contacts per step \(wall time of their passes\): drape \(steps 1–20\) [\d.]+ ms a step, colliders [\d.]+ %, self-collision [\d.]+ %/); // prettier-ignore
    expect(stdout).not.toMatch(/✗/);
  }, 60_000);
});
