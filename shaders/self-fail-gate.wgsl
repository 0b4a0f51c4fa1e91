// Self-collision fail-safe (CPU mirror: selfFailSafe, src/backends/cpu/self-fail-safe.ts), one
// thread before each sweep (`sweep` 0 … 2·MAX_SWEEPS − 1): the first resets the step's counters
// (and keeps the step's pair count); a later one finds the sweeps settled when the last shortened
// no move. Unsettled, it counts the sweep and writes the sweep's indirect workgroup counts from
// their template; settled, zeros, so the sweep's dispatches (mean, reach, the detection, planes,
// truncation) launch nothing. No readback: the CPU never waits inside a step.

override sweep: u32 = 0u;
override dispatchCount: u32 = 0u;  // the sweep's indirect dispatches

@group(0) @binding(6) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(7) var<storage, read_write> selfControl: array<u32>;
// The template [3 dispatchCount] (x, y, z per dispatch), then the counts the sweep reads.
@group(0) @binding(8) var<storage, read_write> selfArgs: array<u32>;

@compute @workgroup_size(1)
fn selfFailGateMain() {
  if (sweep == 0u) {
    for (var k = 0u; k < CONTROL_WORDS; k++) {
      selfControl[k] = 0u;
    }
    selfControl[CONTROL_PAIRS] = pairCount();
  } else if (selfControl[CONTROL_CHANGED] == 0u) {
    selfControl[CONTROL_SETTLED] = 1u;
  }
  let go = selfControl[CONTROL_SETTLED] == 0u;
  if (go) {
    selfControl[CONTROL_SWEEPS] += 1u;
    selfControl[CONTROL_CHANGED] = 0u;
  }
  for (var k = 0u; k < 3u * dispatchCount; k++) {
    selfArgs[3u * dispatchCount + k] = select(0u, selfArgs[k], go);
  }
}
