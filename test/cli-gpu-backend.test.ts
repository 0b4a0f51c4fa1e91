/**
 * `--gpu-backend vulkan|metal|d3d12` (issue 12): Dawn's native backend for the CLI's WebGPU, the
 * platform's own by default (Metal on macOS, D3D12 on Windows, Vulkan elsewhere). A backend the
 * platform lacks, an unknown one, or one given to a run on the CPU is a one-line error, exit 2.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
const SPRING = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');

/** What the prebuilt dawn.node of the `webgpu` package has on each platform, default first. */
const NATIVE: Record<string, string[]> = { darwin: ['metal'], win32: ['d3d12', 'vulkan'] };
const native = NATIVE[process.platform] ?? ['vulkan'];
const TITLES: Record<string, string> = { vulkan: 'Vulkan', metal: 'Metal', d3d12: 'D3D12' };

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await run('node', [WEFT, ...args])) };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test.each(['vulkan', 'metal', 'd3d12'].filter((name) => !native.includes(name)))(
  `--gpu-backend %s, which Dawn lacks on ${process.platform}, is a clear error`,
  async (name) => {
    const { code, stdout, stderr } = await weft('info', '--gpu-backend', name);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `weft: --gpu-backend: '${name}' is not available on ${process.platform}: Dawn runs ${native.join(' or ')} there\n`,
    );
  },
);

const RUN_ON_CPU = ['run', SPRING, '--integrator', 'rk4', '--dt', '0.01', '--steps', '1'];
const ON_CPU = 'applies to WebGPU (--backend webgpu, weft info); this weft';
test.each([
  ['an unknown backend', ['info', '--gpu-backend', 'opengl'], "must be one of vulkan, metal, d3d12, got 'opengl'"], // prettier-ignore
  ['no value', ['info', '--gpu-backend'], `needs a value (${native.join(', ')} here)`],
  ['a run on the CPU', [...RUN_ON_CPU, `--gpu-backend=${native[0]}`], `${ON_CPU} run is on the CPU`],
  ['a demo on the CPU', ['demo', '--backend', 'cpu', '--gpu-backend', native[0]!], `${ON_CPU} demo is on the CPU`], // prettier-ignore
])('--gpu-backend with %s: exit 2, one line naming the flag', async (_label, args, message) => {
  const { code, stderr } = await weft(...args);
  expect(code).toBe(2);
  expect(stderr).toBe(`weft: --gpu-backend: ${message}\n`);
});

test(`--gpu-backend ${native[0]} (the default here) finds the same adapter as no flag`, async () => {
  const [chosen, plain] = await Promise.all([weft('info', '--gpu-backend', native[0]!), weft('info')]);
  expect(chosen.code, chosen.stderr).toBe(0);
  expect(chosen.stdout).toContain(`Found through: Node webgpu (Dawn), ${TITLES[native[0]!]}`);
  expect(chosen.stdout).toBe(plain.stdout);
});

test('a WebGPU run takes --gpu-backend before or after the command', async () => {
  const options = ['--integrator', 'rk4', '--dt', '0.01', '--steps', '2', '--backend', 'webgpu'];
  const [before, after] = await Promise.all([
    weft('--gpu-backend', native[0]!, 'run', SPRING, ...options),
    weft('run', SPRING, ...options, `--gpu-backend=${native[0]}`),
  ]);
  expect(before.code, before.stderr).toBe(0);
  expect(after.code, after.stderr).toBe(0);
  const final = (stdout: string): number[] =>
    (JSON.parse(stdout) as { frames: { positions: number[] }[] }).frames[1]!.positions;
  // The same kernels on the same adapter: bit-identical (tolerance 0).
  expect(final(before.stdout)).toEqual(final(after.stdout));
});
