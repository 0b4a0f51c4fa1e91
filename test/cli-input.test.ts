/**
 * The CLI never loses output and never answers hostile input with a stack trace (issue 11): output
 * piped to another process is complete, `--out` into a missing folder is a one-line error, numbers
 * are decimal only, a scene file's UTF-8 byte-order mark is accepted, integrator names are looked
 * up as own properties, and the demo refuses sizes it could not allocate. Runs the built CLI.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
const SPRING_SCENE = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');
const CLOTH_SCENE = join(import.meta.dirname, '..', 'examples', 'scenes', 'cloth-16.json');
const folder = mkdtempSync(join(tmpdir(), 'weft-cli-input-'));

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [WEFT, ...args], { maxBuffer: 1 << 28 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const weftLines = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('weft:'));

test('output piped to a slow reader is complete: the same document as --out writes (here 6 MB)', async () => {
  // 201 frames of a 16² cloth: far more than a pipe's 64 KiB buffer, read by a process that
  // starts reading late, so the CLI must wait for stdout to drain before it exits.
  const args = ['run', CLOTH_SCENE, '--integrator', 'symplectic-euler', '--dt', '0.001', '--steps', '200', '--every', '1']; // prettier-ignore
  const [file, piped] = [join(folder, 'frames.json'), join(folder, 'piped.json')];
  expect((await weft(...args, '--out', file)).code).toBe(0);
  expect(statSync(file).size).toBeGreaterThan(1 << 20);
  const quoted = args.map((a) => `'${a}'`).join(' ');
  await run('sh', ['-c', `node '${WEFT}' ${quoted} | (sleep 1; cat > '${piped}')`]);
  type Output = { frames: unknown[]; stats: { steps: number } };
  const [written, read] = [file, piped].map((path) => JSON.parse(readFileSync(path, 'utf8')) as Output);
  expect(read!.frames).toHaveLength(201);
  expect(read!.frames).toEqual(written!.frames);
  expect(read!.stats.steps).toBe(200);
}, 120_000);

describe('hostile input gets one line naming the field, exit code 2, no stack trace', () => {
  const good = ['--integrator', 'rk4', '--dt', '0.01', '--steps', '2'];
  test.each([
    ['--out into a missing folder', ['run', SPRING_SCENE, ...good, '--out', join(folder, 'missing', 'out.json')], /^weft: --out: cannot write '.*out\.json': ENOENT/], // prettier-ignore
    ['a hexadecimal dt', ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', '0x10', '--steps', '1'], /^weft: --dt: must be a finite decimal number, got '0x10'/], // prettier-ignore
    ['a hexadecimal option', ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', '0.01', '--steps', '1', '--rayleigh-mass', '0x1'], /^weft: --rayleigh-mass: must be a finite decimal number/], // prettier-ignore
    ['Infinity', ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', 'Infinity', '--steps', '1'], /^weft: --dt: must be a finite decimal number/], // prettier-ignore
    ['integrator constructor', ['run', SPRING_SCENE, '--integrator', 'constructor', '--dt', '0.01', '--steps', '1'], /^weft: --integrator: unknown integrator 'constructor'/], // prettier-ignore
    ['integrator __proto__', ['run', SPRING_SCENE, '--integrator', '__proto__', '--dt', '0.01', '--steps', '1'], /^weft: --integrator: unknown integrator '__proto__'/], // prettier-ignore
    ['a demo too large to allocate', ['demo', '--backend', 'cpu', '--size', '1e6'], /^weft: --size: must be at most 2048/], // prettier-ignore
  ])(
    '%s',
    async (_, args, message) => {
      const { code, stderr } = await weft(...args);
      expect(code).toBe(2);
      expect(weftLines(stderr)).toHaveLength(1);
      expect(weftLines(stderr)[0]).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /); // no stack frames
    },
    60_000,
  );
});

test('a scene file with a UTF-8 byte-order mark runs as the same file without it', async () => {
  const withMark = join(folder, 'bom.json');
  writeFileSync(withMark, '\uFEFF' + readFileSync(SPRING_SCENE, 'utf8'));
  const args = ['--integrator', 'rk4', '--dt', '0.01', '--steps', '5'];
  const [plain, marked] = [await weft('run', SPRING_SCENE, ...args), await weft('run', withMark, ...args)];
  expect(marked.code).toBe(0);
  const frames = (text: string): unknown => (JSON.parse(text) as { frames: unknown }).frames;
  expect(frames(marked.stdout)).toEqual(frames(plain.stdout));
}, 60_000);

test('Ctrl-C ends a run of 1e12 steps at once with exit 130 and a complete document: the start, the state reached, the error', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn('node', [WEFT, 'run', SPRING_SCENE, '--integrator', 'rk4', '--dt', '1e-6', '--steps', '1000000000000', '--progress']); // prettier-ignore
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Wait for the first progress line (the run is under way), then interrupt.
  while (!/steps\/s/.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(stderr).toMatch(/about [\d,]+ days left/); // 1e12 steps: the ETA says so
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(130);
  const output = JSON.parse(stdout) as {
    frames: { step: number }[];
    stats?: unknown;
    error: { message: string };
  };
  expect(output.frames).toHaveLength(2);
  expect(output.frames[1]!.step).toBeGreaterThan(0);
  expect(output.stats).toBeUndefined();
  expect(output.error.message).toMatch(/^interrupted \(Ctrl-C\) at step \d+ of 1000000000000/);
}, 60_000);

describe('a scene mesh collider read from an OBJ file (relative to the scene)', () => {
  // A 2 m box, its top at y = 0 (faces wound counter-clockwise seen from outside).
  const BOX = ['v -1 -1 -1', 'v 1 -1 -1', 'v 1 0 -1', 'v -1 0 -1', 'v -1 -1 1', 'v 1 -1 1', 'v 1 0 1', 'v -1 0 1', 'f 1 4 3 2', 'f 5 6 7 8', 'f 1 2 6 5', 'f 4 8 7 3', 'f 1 5 8 4', 'f 2 3 7 6'].join('\n'); // prettier-ignore
  const scene = (collider: object): string => {
    const dir = mkdtempSync(join(folder, 'obj-collider-'));
    writeFileSync(join(dir, 'box.obj'), BOX);
    const file = join(dir, 'scene.json');
    writeFileSync(file, JSON.stringify({ cloth: { nx: 4, ny: 4, spacing: 0.1, pins: 'none', origin: [-0.15, 0.2, -0.15] }, colliders: [{ shape: 'mesh', thickness: 0.01, ...collider }] })); // prettier-ignore
    return file;
  };

  test('a cloth dropped on it rests on its top at the thickness', async () => {
    const { code, stdout, stderr } = await weft('run', scene({ obj: 'box.obj' }), '--integrator', 'implicit-euler', '--dt', '0.01', '--steps', '150'); // prettier-ignore
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as { frames: { positions: number[] }[] };
    const ys = output.frames.at(-1)!.positions.filter((_, k) => k % 3 === 1);
    for (const y of ys) expect(Math.abs(y - 0.01)).toBeLessThan(1e-6);
  });

  test.each([
    [{ obj: 'missing.obj' }, /^weft: colliders\[0\]\.obj: cannot read '.*missing\.obj': ENOENT$/],
    [{ obj: 7 }, /^weft: colliders\[0\]\.obj: must be a file name, got 7$/],
    [{ obj: 'box.obj', vertices: [0, 0, 0] }, /^weft: colliders\[0\]\.obj: names the mesh already given/],
  ])('%j is a one-line error naming colliders[0].obj', async (collider, message) => {
    const { code, stderr } = await weft(
      'run',
      scene(collider),
      '--integrator',
      'implicit-euler',
      '--dt',
      '0.01',
      '--steps',
      '1',
    );
    expect(code).not.toBe(0);
    expect(weftLines(stderr)).toHaveLength(1);
    expect(weftLines(stderr)[0]).toMatch(message);
  });
});
