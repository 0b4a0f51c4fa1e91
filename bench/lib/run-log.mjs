// The benches' progress lines on stderr (bench/contacts.mjs, bench/drop-check.mjs): `say` prefixes
// the seconds since the run started; `progress` says at most every 20 s.

/** A run's logger, its clock started now. */
export function runLog() {
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const say = (text) => process.stderr.write(`[${elapsed()}] ${text}\n`);
  let lastSaid = 0;
  const progress = (text) => {
    if (performance.now() - lastSaid < 20_000) return;
    lastSaid = performance.now();
    say(text);
  };
  return { elapsed, say, progress };
}
