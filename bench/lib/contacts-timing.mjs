// Where a step's time goes, for bench/contacts.mjs.
//
// CPU: methods of the simulation's own objects (CpuContacts, CpuSelfContact, CpuImplicitOps) are
// wrapped on the instance with timers that count exclusive time — a call's time less that of the
// wrapped calls inside it — so nested passes (a contact filter inside CG, the pair listing inside
// the fail-safe) are counted once, in their own category. Only calls made per solve or per CG
// iteration are wrapped (never per particle), so the timers' own cost stays below the noise.
// WebGPU: the `profile` option's per-kernel GPU timestamps, grouped by kernel label (gpuCategory).

/** Exclusive time per category, ms. */
export class ExclusiveTimers {
  constructor() {
    /** @type {Record<string, number>} */
    this.totals = {};
    /** @type {Record<string, number>} */
    this.calls = {};
    /** Time of wrapped calls inside each open call, ms. */
    this.inner = [];
  }

  /** Replaces `object[method]` (an own property shadowing the prototype's) by a timed call. */
  wrap(object, method, category) {
    const original = object?.[method];
    if (typeof original !== 'function') throw new Error(`cannot time ${category}: no method '${method}'`);
    const { totals, calls, inner } = this;
    object[method] = function timed(...args) {
      const started = performance.now();
      inner.push(0);
      try {
        return original.apply(this, args);
      } finally {
        const elapsed = performance.now() - started;
        totals[category] = (totals[category] ?? 0) + elapsed - inner.pop();
        calls[category] = (calls[category] ?? 0) + 1;
        if (inner.length > 0) inner[inner.length - 1] += elapsed;
      }
    };
  }

  snapshot() {
    return { ...this.totals };
  }
}

/**
 * The categories of a CPU implicit-Euler step:
 * - `solve.linear`: CG with its multigrid preconditioner (CpuImplicitOps.solve);
 * - `solve.assembly`: the other implicit ops — spring states and Jacobians, right-hand side;
 * - `contacts`: collider contacts — detection, x₀ = z, the filter S in CG, the response (release, friction);
 * - `contacts.product`: A Δv − b for the constraint forces (one system product per step);
 * - `self.detect`, `self.list`, `self.failSafe`: the step's pair list (its hash and narrow phase
 *   in `self.list`), and the fail-safe's planes and truncations (its re-listings in `self.list`);
 * - `self.terms`: the pairs' states, right-hand-side and product terms and their gathers in the
 *   solve (their diagonal blocks, added per particle, stay in `solve.*`).
 * The rest of the step (position update, copies, statistics) is its wall time less these.
 */
export function instrumentCpu(sim) {
  const executor = sim.executor;
  if (!executor?.implicit) throw new Error('not a CPU implicit simulation: cannot time its passes');
  const timers = new ExclusiveTimers();
  const implicit = executor.implicit;
  timers.wrap(implicit, 'solve', 'solve.linear');
  timers.wrap(implicit, 'apply', 'solve.assembly');
  if (executor.contacts) {
    for (const method of ['detect', 'filter', 'start', 'respond'])
      timers.wrap(executor.contacts, method, 'contacts');
    timers.wrap(implicit, 'contactForces', 'contacts.product');
  }
  const self = executor.selfContact;
  if (self) {
    timers.wrap(self, 'detect', 'self.detect');
    timers.wrap(self, 'listPairs', 'self.list');
    timers.wrap(self, 'failSafe', 'self.failSafe');
    for (const method of ['states', 'rhsTerms', 'productTerms', 'gather'])
      timers.wrap(self, method, 'self.terms');
  }
  return timers;
}

/**
 * A kernel's category, as the CPU's: collider contacts; self-collision's fail-safe (selfFail*),
 * its pair terms in the solve (selfPairStates, …Terms, …Gather, …Product, …Diagonal) and its
 * listing (every other self* kernel: keys, scans, sorts, narrow phase, reach — the step's list and
 * the fail-safe sweeps' alike, so there is no separate `self.detect`); the rest of the step (the solve).
 */
export function gpuCategory(kernel) {
  if (/^(contact|collider)/.test(kernel)) return 'contacts';
  if (/selfFail/.test(kernel)) return 'self.failSafe';
  if (/selfPair(States|Terms|Gather|Product|Diagonal)/.test(kernel)) return 'self.terms';
  if (/self/i.test(kernel)) return 'self.list';
  return 'solve';
}

/**
 * GPU ms per category between two readProfile() results (they are totals since creation), and
 * each kernel's ms and dispatches, the slowest first.
 */
export function profileDifference(before, after) {
  const earlier = new Map(before.map((k) => [k.kernel, k]));
  const totals = {};
  const kernels = after
    .map((k) => ({
      kernel: k.kernel,
      milliseconds: k.milliseconds - (earlier.get(k.kernel)?.milliseconds ?? 0),
      dispatches: k.dispatches - (earlier.get(k.kernel)?.dispatches ?? 0),
    }))
    .sort((a, b) => b.milliseconds - a.milliseconds);
  for (const k of kernels)
    totals[gpuCategory(k.kernel)] = (totals[gpuCategory(k.kernel)] ?? 0) + k.milliseconds;
  return { totals, kernels };
}

/**
 * What self-collision did over the window, from each step's readSolverStats().selfContact: pairs
 * and active pairs per particle (mean and max), the fail-safe's sweeps (mean), and its counts
 * summed; `stepsUndone`: steps whose sweeps did not settle, every move undone.
 */
export class SelfTally {
  constructor(model) {
    this.particles = model.particleCount;
    this.free = model.particleInvMass.filter((w) => w > 0).length;
    this.pairs = [];
    this.active = [];
    this.sweeps = [];
    this.counts = { truncated: 0, undone: 0, frozen: 0, pinched: 0, stepsUndone: 0 };
  }

  add(stats) {
    const self = stats?.selfContact;
    if (!self) return;
    this.pairs.push(self.pairs / this.particles);
    this.active.push(self.activePairs / this.particles);
    this.sweeps.push(self.sweeps);
    for (const key of ['truncated', 'undone', 'frozen', 'pinched']) this.counts[key] += self[key];
    if (self.undone >= this.free) this.counts.stepsUndone++;
  }

  /** The row's fields; none when the run had no self-collision. */
  fields() {
    if (this.pairs.length === 0) return {};
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      pairsPerParticle: mean(this.pairs),
      pairsPerParticleMax: Math.max(...this.pairs),
      activePerParticle: mean(this.active),
      sweeps: mean(this.sweeps),
      ...this.counts,
    };
  }
}
