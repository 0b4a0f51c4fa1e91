#!/usr/bin/env node
// The `weft` command: runs the CLI built by `npm run build` (dist/cli/weft.js). Dawn prints its
// warnings about drivers it cannot use from native code, where nothing in the process can stop
// them, so the CLI runs as a child whose stderr passes through bin/dawn-stderr.js; with
// --verbose it runs here, its stderr untouched.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DawnWarningFilter } from './dawn-stderr.js';

const cli = new URL('../dist/cli/weft.js', import.meta.url);
if (!existsSync(cli)) {
  console.error(
    'weft: the CLI is not built yet; run `npm run build` (or `npm start`) in the Weft folder first',
  );
  process.exit(1);
}
const args = process.argv.slice(2);
if (args.includes('--verbose')) {
  await import(cli.href);
} else {
  const windows = process.platform === 'win32';
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(cli), ...args], {
    stdio: ['inherit', 'inherit', 'pipe'],
    // The progress bar redraws itself in place when the stderr behind the pipe is a terminal.
    env: process.stderr.isTTY ? { ...process.env, WEFT_STDERR_TTY: '1' } : process.env,
    // Its own process group, so that a terminal's Ctrl-C reaches it once, forwarded from here (a
    // first SIGINT ends a run with a complete document, a second kills it). Windows has no process
    // groups: every process on the console gets Ctrl-C itself.
    detached: !windows,
  });
  const filter = new DawnWarningFilter();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => process.stderr.write(filter.push(text)));
  child.stderr.on('end', () => process.stderr.write(filter.end()));
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => (windows && signal === 'SIGINT' ? undefined : child.kill(signal));
  for (const signal of signals) process.on(signal, forward);
  child.on('close', (code, signal) => {
    for (const name of signals) process.off(name, forward);
    // Died of a signal: die of the same one, so that the caller sees what it would without us.
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}
