// One time-boxed run from t = 0, shared by Weft and the peers.
//
// The first unit (one Weft step, or one peer frame) is a warm-up: it pays for JIT compilation and
// pipeline creation and is not timed into the result. A second unit is timed as a probe; then the
// run is cut into chunks of a whole frame — fewer steps when a frame would not fit three times
// into the time box — each timed on its own; ms per step is the median over chunks. Timing stops after `budget` seconds; the run
// goes on, still timed, only to reach `maxSteps` (2 s of simulated time, for the quality figures)
// when the rest is projected to fit within `qualityBudget` seconds in all.

/** Median of a non-empty list. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * @param {object} o
 * @param {(steps: number) => Promise<void>} o.advance takes that many steps and resolves when they are done
 * @param {number} o.unit          the smallest number of steps `advance` accepts (1, or a frame for peers)
 * @param {number} o.stepsPerFrame steps in one 1/60 s frame
 * @param {number} o.maxSteps      stop here (a whole number of frames)
 * @param {number} o.budget        seconds of timing after the warm-up; 0: no limit
 * @param {number} o.qualityBudget seconds the whole run may take to reach maxSteps; 0: no limit
 * @param {(stepsDone: number) => void} [o.onChunk]
 */
export async function timeBoxed({ advance, unit, stepsPerFrame, maxSteps, budget, qualityBudget, onChunk }) {
  const clock = () => performance.now() / 1000;
  const started = clock();
  await advance(unit);
  const warmUpSeconds = clock() - started;
  let done = unit;
  onChunk?.(done);
  /** Seconds per step of each timed chunk. */
  const samples = [];
  let timedSteps = 0;
  // The first chunk is one unit, a probe that sizes the rest.
  let chunk = unit;
  const timingStarted = clock();
  while (done < maxSteps) {
    const now = clock();
    if (samples.length > 0 && budget > 0 && now - timingStarted >= budget) {
      const projected = (maxSteps - done) * median(samples);
      if (qualityBudget <= 0 || now - started + projected > qualityBudget) break;
    }
    const steps = Math.min(chunk, maxSteps - done);
    const before = clock();
    await advance(steps);
    const seconds = clock() - before;
    samples.push(seconds / steps);
    timedSteps += steps;
    done += steps;
    onChunk?.(done);
    if (samples.length === 1) {
      // A frame per chunk, or fewer steps (whole units) when a frame would not fit three times
      // into the time box.
      const perStep = seconds / steps;
      chunk =
        budget > 0 && perStep * stepsPerFrame > budget / 3
          ? Math.max(unit, unit * Math.floor(budget / 3 / perStep / unit))
          : stepsPerFrame;
    }
  }
  return {
    warmUpSeconds,
    stepsDone: done,
    timedSteps,
    samples: samples.length,
    secondsPerStep: samples.length ? median(samples) : warmUpSeconds / unit,
    minSecondsPerStep: samples.length ? Math.min(...samples) : warmUpSeconds / unit,
    wallSeconds: clock() - started,
  };
}
