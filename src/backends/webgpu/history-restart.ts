/**
 * The overrides of shaders/history-restart.wgsl for an op that restarts a multistep scheme's
 * velocity history (`project`, `selfFailSafe`; src/integrators/program.ts): restartCount and the
 * arena references restart0–2 of the vectors named in `restart`.
 */
import type { ExecutorServices } from './dispatch.ts';

/** The most vectors history-restart.wgsl restarts. */
const MOST = 3;

export function historyRestartConstants(
  x: ExecutorServices,
  op: string,
  restart: readonly string[] = [],
  heads: ReadonlyMap<string, number>,
): Record<string, number> {
  if (restart.length > MOST) throw new Error(`${op}: ${restart.length} vectors to restart, history-restart.wgsl takes ${MOST}`); // prettier-ignore
  const refs = Object.fromEntries(restart.map((name, j) => [`restart${j}`, x.reference(name, heads)]));
  return { restartCount: restart.length, ...refs };
}
