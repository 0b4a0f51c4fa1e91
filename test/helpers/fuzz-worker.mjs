/**
 * The thread that runs the fuzz harness's CPU cases (test/helpers/fuzz-pool.ts), so that a case
 * that never returns — a synchronous loop included — can be stopped: the pool terminates this
 * worker after the case's time limit and starts another. Messages: `{ id, fuzzCase }` in,
 * `{ id, outcome }` out; an unhandled rejection is reported as `{ unhandled }`.
 */
import { register } from 'node:module';
import { parentPort } from 'node:worker_threads';

register('./fuzz-loader.mjs', import.meta.url);
const { runCase } = await import('./fuzz-run.ts');

process.on('unhandledRejection', (reason) => {
  parentPort.postMessage({ unhandled: String(reason?.stack ?? reason) });
});
parentPort.on('message', async ({ id, fuzzCase }) => {
  const outcome = await runCase(fuzzCase);
  parentPort.postMessage({ id, outcome });
});
parentPort.postMessage({ ready: true });
