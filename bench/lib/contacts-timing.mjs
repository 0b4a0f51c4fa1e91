// Where a step's time goes, for bench/contacts.mjs.
//
// CPU: methods of the simulation's own objects (CpuContacts, CpuSelfContact, CpuImplicitOps) are
// wrapped on the instance with timers that count exclusive time — a call's time less that of the
// wrapped calls inside it — so nested passes (a contact filter inside CG, the pair listing inside
// the fail-safe) are counted once, in their own category. Only calls made per solve or per CG
// iteration are wrapped (never per particle), so the timers' own cost stays below the noise.
// WebGPU: the `profile` option's per-kernel GPU timestamps, grouped by kernel label.

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

/** A kernel's category: collider contacts, or the rest of the step (the solve). */
export const gpuCategory = (kernel) => (/^(contact|collider)/.test(kernel) ? 'contacts' : 'solve');

/** GPU ms per category between two readProfile() results (they are totals since creation). */
export function profileDifference(before, after) {
  const earlier = new Map(before.map((k) => [k.kernel, k.milliseconds]));
  const totals = { contacts: 0, solve: 0 };
  for (const k of after) totals[gpuCategory(k.kernel)] += k.milliseconds - (earlier.get(k.kernel) ?? 0);
  return totals;
}
