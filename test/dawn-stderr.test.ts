/**
 * Dawn's adapter warnings (issue 12): Dawn prints what it finds wrong with a driver it will not
 * use straight to file descriptor 2, from native code; bin/weft.js runs the CLI with its stderr
 * passed through bin/dawn-stderr.js, which drops exactly those blocks, unless --verbose. The
 * filter is checked on text split at every point (what the pipe may deliver), then through the
 * CLI on this machine.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { DawnWarningFilter } from '../bin/dawn-stderr.js';

const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
const SPRING = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');

/** Verbatim from `weft info --verbose` on a machine with Mesa's lavapipe (webgpu 0.6.2). */
const DAWN_BLOCK = `Warning: Vulkan shaderUniform*ArrayDynamicIndexing required.
 - While initializing adapter (backend=BackendType::Vulkan)
    at InitializeImpl (/home/runner/work/node-webgpu/node-webgpu/third_party/dawn/src/dawn/native/vulkan/PhysicalDeviceVk.cpp:257)

`;

/** Everything else stays, "Warning: " lines of other origins included. */
const KEPT = [
  'weft: --dt: must be a finite number > 0, got 0\n',
  'Warning: a warning that is not about an adapter\n',
  'Warning: Dawn, about a device\n - While calling [Device].CreateBuffer\n    at Validate (Buffer.cpp:12)\n\n',
  '\r[###...........................] sim  10% 10/100 steps, 5 steps/s',
  '\r[##############################] sim 100% 100/100 steps, 5 steps/s\n',
];

function filtered(pieces: readonly string[]): string {
  const filter = new DawnWarningFilter();
  return pieces.map((piece) => filter.push(piece)).join('') + filter.end();
}

test('drops the Dawn block wherever the pipe splits it, and keeps every other byte', () => {
  const text = [KEPT[0], DAWN_BLOCK, KEPT[1], KEPT[2], DAWN_BLOCK, DAWN_BLOCK, KEPT[3], KEPT[4]].join('');
  const expected = KEPT.join('');
  expect(filtered([text])).toBe(expected);
  expect(filtered([...text])).toBe(expected); // one character at a time
  for (let cut = 1; cut < text.length; cut++) {
    expect(filtered([text.slice(0, cut), text.slice(cut)]), `split at ${cut}`).toBe(expected);
  }
});

test('passes an unfinished line on at once unless it may begin a Dawn block', () => {
  const filter = new DawnWarningFilter();
  expect(filter.push('\r[#####.........] sim  50%')).toBe('\r[#####.........] sim  50%');
  expect(filter.push(' more of the same line')).toBe(' more of the same line');
  expect(filter.push('\nWarn')).toBe('\n'); // may still be "Warning: …"
  expect(filter.push('ing: x\n - While initializing adapter (backend=BackendType::Vulkan)\n')).toBe('');
  expect(filter.push('done')).toBe('done'); // no frame and no blank line: the block is over
  expect(filter.end()).toBe('');
});

test('weft info shows Dawn its adapter warnings only with --verbose, and otherwise the same text', async () => {
  const [quiet, verbose] = await Promise.all([run('node', [WEFT, 'info']), run('node', [WEFT, 'info', '--verbose'])]); // prettier-ignore
  expect(quiet.stderr).not.toContain('While initializing adapter');
  expect(quiet.stdout).toBe(verbose.stdout);
  // Whatever --verbose shows beyond the quiet run is Dawn's adapter blocks and nothing else.
  expect(filtered([verbose.stderr])).toBe(quiet.stderr);
});

test('the progress bar redraws in place when bin/weft.js says the stderr behind its pipe is a terminal', async () => {
  const args = [WEFT, 'run', SPRING, '--integrator', 'rk4', '--dt', '0.01', '--steps', '10', '--progress'];
  const terminal = await run('node', args, { env: { ...process.env, WEFT_STDERR_TTY: '1' } });
  expect(terminal.stderr).toMatch(/\r\[#{30}\] \S+ 100% 10\/10 steps/);
  const pipe = await run('node', args);
  expect(pipe.stderr).not.toContain('\r');
  expect(pipe.stderr).toMatch(/100% 10\/10 steps/);
});
