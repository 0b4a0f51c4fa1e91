/**
 * The generated form of a fused program (issue 10): the WGSL of its three blocks — runFirst,
 * runAttempt, runAccept, which shaders/fused-adaptive.wgsl's entry point calls — as the program's
 * ops called in sequence with literal arguments (arena references, coefficient-table entries,
 * the solver's modes), each Newton loop a WGSL `loop` with Caribou's test (fused-solve.wgsl
 * newtonOutcome). The ops' bodies stay in shaders/fused-*.wgsl; this writes only the sequence.
 *
 * Why: SwiftShader runs every branch of an `if` or a `switch` under a lane mask and never jumps
 * over one, so the interpreter (fused-interpreter.wgsl) pays the bodies of all its ops for each op
 * it runs. Here an op costs its own body, whose branches on its literal arguments fold away when
 * the compiler inlines it (loadVector's choice of buffer, the preconditioner, the warm start).
 * Ops that work particle by particle share one pass over the particles (a "pass" below): any
 * number of `combine`s and `measure`s (whose sums share one reduction, up to four) and of
 * `eval`s, `jacobians` and `rhs`s, which read other particles' values: the pass may not write what
 * they read there (a Newton residual, jacobians then rhs, is one pass). A Newton loop's update may
 * lend its closing `measure` and its solve's first pass to its residual's pass (fused-program.ts
 * Compiler.join): a Newton iteration then waits at three reductions, the solve's two and the
 * residual's. Barriers are few because on SwiftShader each is a switch of coroutines (~0.2 µs,
 * as much as a pass over two particles): a reduction waits at three (fused-common.wgsl
 * reduceAll), and a storageBarrier comes only before a pass or solve that reads other particles'
 * values while writes are pending (and at a block's end).
 * The text depends on the program's shape only (its numbers are in the coefficient table and
 * `settings`), so programs of one shape share one pipeline (gpu-common.ts caches by text).
 */

/** The `measure` quantities as the blocks' variables (fused-interpreter.wgsl run()'s). */
const QUANTITY_VARIABLES = { residual: 'residual2', correction: 'correction2', total: 'total2', start: 'start2' } as const; // prettier-ignore
export type FusedQuantity = keyof typeof QUANTITY_VARIABLES;

/** A linear solve's modes (fused-solve.wgsl): CG's vectors (r, p, q = A p, z = P⁻¹ r), preconditioner, warm start, exact Jacobian. */
export interface FusedSolverModes {
  readonly cg: readonly [number, number, number, number];
  /** 0: none, 1: scalar diagonal, 2: 3×3 block diagonal. */
  readonly preconditioner: number;
  readonly warmStart: boolean;
  readonly exactJacobian: boolean;
}

const u = (k: number): string => `${k}u`;
const vec4u = (k: readonly number[]): string => `vec4<u32>(${k.map(u).join(', ')})`;

/** Lines of WGSL, each with its depth of nesting. */
type Lines = [number, string][];

/** Components of the reduction of a pass's `measure`s (a vec4). */
const COMPONENTS = ['x', 'y', 'z', 'w'] as const;

/** Ops over the particles that share one loop (see above), not written yet. */
interface Pass {
  /** Statement lists of its ops, in order, at particle i. */
  members: string[][];
  /** Vectors its leads (eval, jacobians, rhs) read at other particles: no op of the pass writes them. */
  reads: Set<number>;
  /** Vectors written. */
  writes: Set<number>;
  /** Per reduction component, the variable it sets. */
  measures: string[];
  /** Leads, and those that count as an evaluation (eval, jacobians). */
  leads: number;
  evaluations: number;
  /** Writes of other threads were pending when it opened (BlockWriter.pending). */
  after: boolean;
}

/**
 * Writes one block's WGSL while the compiler walks its ops (the references and table entries
 * resolved). Its loops test at their end (fused-common.wgsl: on SwiftShader a loop whose test at
 * the top fails runs its body once more, masked).
 */
export class BlockWriter {
  private readonly lines: Lines = [];
  /** Blocks open. */
  private depth = 0;
  /** Per Newton loop open: where its residual ops start and end in `lines`. */
  private readonly newtons: { residual: number; check: number }[] = [];
  private pass: Pass | null = null;
  /**
   * Storage written since the last storageBarrier, which another thread may read: the barrier
   * waits until a pass or solve reads other particles' values (each is a coroutine switch on
   * SwiftShader), and ends a block.
   */
  private pending = false;

  /**
   * `zero(k)`: coefficient-table entry k is 0 for every h; it is written as the literal 0.0 (the
   * value coefficient() gives), so that what it multiplies can fold (fused-ops.wgsl rhsAt).
   */
  constructor(
    private readonly modes: FusedSolverModes,
    private readonly zero: (k: number) => boolean,
  ) {}

  /** The f32 of coefficient-table entry k at the block's step h. */
  private c = (k: number): string => (this.zero(k) ? '0.0' : `coefficient(${u(k)}, h)`);

  /** `text` after the pass open; `readsOthers`: after the pending writes; `writes`: storage. */
  private line(text: string, readsOthers = false, writes = false): void {
    this.flush();
    if (readsOthers) this.barrier();
    this.lines.push([this.depth, text]);
    this.pending ||= writes;
  }

  private barrier(): void {
    if (this.pending) this.lines.push([this.depth, 'storageBarrier();']);
    this.pending = false;
  }

  private open(text: string): void {
    this.line(text);
    this.depth++;
  }

  private close(text = '}'): void {
    this.depth--;
    this.line(text);
  }

  /** The function `name` (runFirst, runAttempt, runAccept) of the ops written so far. */
  finish(name: string): string {
    this.flush();
    this.barrier();
    if (this.depth !== 0) throw new Error('BlockWriter: a Newton loop was left open');
    return [
      `fn ${name}(local: u32, h: f32) -> vec3<f32> {`,
      '  var newtonFailed = 0.0;',
      '  var error = vec2<f32>(0.0, 1.0);',
      // Caribou's quantities: ‖R‖², ‖δa‖², ‖Σ δa‖², ‖x₀‖², ‖R₁‖².
      '  var residual2 = 0.0;',
      '  var correction2 = 0.0;',
      '  var total2 = 0.0;',
      '  var start2 = 0.0;',
      '  var firstResidual2 = 0.0;',
      // r₀·z₀ of a solve whose first pass ran in the pass of its b (solveStart).
      '  var startRz = 0.0;',
      ...this.lines.map(([depth, text]) => `${'  '.repeat(1 + depth)}${text}`),
      '  return vec3<f32>(newtonFailed, error);',
      '}',
      '',
    ].join('\n');
  }

  /** The pass open, or a new one. */
  private member(): Pass {
    return (this.pass ??= {
      members: [],
      reads: new Set(),
      writes: new Set(),
      measures: [],
      leads: 0,
      evaluations: 0,
      after: this.pending,
    });
  }

  /**
   * Writes the pass open: a barrier first if it reads other particles' values while writes are
   * pending, one loop over the particles, the reduction of its measures.
   */
  private flush(): void {
    const pass = this.pass;
    if (!pass) return;
    this.pass = null;
    this.pending = pass.after;
    if (pass.reads.size > 0) this.barrier();
    const reduced = pass.measures.length > 0;
    const at = (text: string): void => void this.lines.push([this.depth, text]);
    at('{');
    this.depth++;
    if (reduced) at('var own = vec4<f32>(0.0);');
    at('var i = local;');
    at('loop {');
    this.depth++;
    at('if (i < params.particleCount) {');
    this.depth++;
    for (const member of pass.members) {
      if (member.length === 1) {
        at(member[0]!);
        continue;
      }
      at('{');
      this.depth++;
      member.forEach(at);
      this.depth--;
      at('}');
    }
    this.depth--;
    at('}');
    at('continuing {');
    at('  i += workgroupSize;');
    at('  break if i >= params.particleCount;');
    at('}');
    this.depth--;
    at('}');
    if (reduced) {
      at('let sums = sumAll(local, own);');
      pass.measures.forEach((variable, k) => at(`${variable} = sums.${COMPONENTS[k]};`));
    }
    this.depth--;
    at('}');
    this.pending ||= pass.leads > 0 || pass.writes.size > 0;
    if (pass.evaluations > 0) {
      at('if (local == 0u) {');
      at(`  control.evaluations += ${u(pass.evaluations)};`);
      at('}');
    }
  }

  /**
   * `call` at particle i, reading `reads` at other particles and writing `writes`: in the pass open
   * unless that writes what it reads there or reads there what it writes.
   */
  private lead(call: string, reads: readonly number[], writes: readonly number[], evaluation: boolean): void {
    const open = this.pass;
    if (open && (reads.some((r) => open.writes.has(r)) || writes.some((w) => open.reads.has(w))))
      this.flush();
    const pass = this.member();
    pass.members.push([`${call};`]);
    reads.forEach((r) => pass.reads.add(r));
    writes.forEach((w) => pass.writes.add(w));
    pass.leads++;
    if (evaluation) pass.evaluations++;
  }

  eval(x: number, v: number, a: number, rayleighMass: number): void {
    this.lead(`evaluateAt(i, ${u(x)}, ${u(v)}, ${u(a)}, ${this.c(rayleighMass)})`, [x, v], [a], true);
  }

  /** Each output from the old values (terms as (reference, table entry), summed last first), then written. */
  combine(outputs: readonly { to: number; terms: readonly (readonly [number, number])[] }[]): void {
    // Not in a pass whose leads read, at other particles, what this writes.
    if (outputs.some((out) => this.pass?.reads.has(out.to))) this.flush();
    const statements: string[] = [];
    outputs.forEach((out, k) => {
      statements.push(`var y${k} = vec3<f32>(0.0);`);
      for (const [vector, entry] of [...out.terms].reverse())
        statements.push(`y${k} += combineTerm(${u(vector)}, ${u(entry)}, h, i);`);
    });
    outputs.forEach((out, k) => statements.push(`storeVector(${u(out.to)}, i, y${k});`));
    const pass = this.member();
    pass.members.push(statements);
    outputs.forEach((out) => pass.writes.add(out.to));
  }

  measure(quantity: FusedQuantity, vector: number): void {
    if (this.pass && this.pass.measures.length === COMPONENTS.length) this.flush();
    const pass = this.member();
    pass.members.push([`own.${COMPONENTS[pass.measures.length]} += squareAt(${u(vector)}, i);`]);
    pass.measures.push(QUANTITY_VARIABLES[quantity]);
  }

  /** error (e_x, e_v), states (y_x, y_v, ŷ_x, ŷ_v), tolerances (r, a_x, a_v, w_x, w_v) as table entries. */
  norm(error: readonly number[], states: readonly number[], tolerances: readonly number[]): void {
    const [r, ax, av, wx, wv] = tolerances.map(this.c);
    this.line(`error = norm(local, vec2<u32>(${error.map(u).join(', ')}), ${vec4u(states)}, vec4<f32>(${r}, ${ax}, ${av}, ${wx}), ${wv});`); // prettier-ignore
  }

  /** The spring states of particle i's incidence entries (fused-ops.wgsl jacobiansAt), in a pass. */
  jacobians(x: number, v: number): void {
    this.lead(
      `jacobiansAt(i, ${u(x)}, ${u(v)}, ${this.modes.exactJacobian ? '1u' : '0u'})`,
      [x, v],
      [],
      true,
    );
  }

  /** vectors (b, v, a, w); coefficients: the eight RhsCoefficients' table entries in order. */
  rhs(vectors: readonly number[], coefficients: readonly number[]): void {
    const scales = coefficients.slice(0, 4).map(this.c).join(', ');
    const terms = coefficients.slice(4, 8).map(this.c).join(', ');
    const [b, v, a] = vectors as [number, number, number];
    this.lead(`rhsAt(i, ${vec4u(vectors)}, vec4<f32>(${scales}), vec4<f32>(${terms}))`, [v, a], [b], false);
  }

  /** A x = b, system (α, β, γ) as table entries. */
  solve(b: number, x: number, system: readonly number[]): void {
    const m = this.modes;
    const modes = `vec2<u32>(${u(m.preconditioner)}, ${m.warmStart ? '1u' : '0u'})`;
    this.line(
      `solve(local, ${u(b)}, ${u(x)}, ${this.system(system)}, ${vec4u(m.cg)}, ${modes});`,
      true,
      true,
    );
  }

  /**
   * A solve's first pass (x₀ = 0: P⁻¹, r₀ = b, z₀, r₀·z₀) run in the open pass, which computed b
   * (its lead, rhs) and measured ‖b‖² as the residual: solveJoined then goes on from there, a pass
   * and a reduction fewer per Newton iteration (and its first pass paid once more, where the loop
   * ends on this residual).
   */
  solveStart(b: number, x: number, system: readonly number[]): void {
    const pass = this.pass;
    if (!pass?.writes.has(b) || pass.measures.length === COMPONENTS.length)
      throw new Error('BlockWriter.solveStart: no pass computing b with a free reduction component');
    const m = this.modes;
    pass.members.push([`own.${COMPONENTS[pass.measures.length]} += solveStartAt(i, loadVector(${u(b)}, i), ${u(x)}, ${this.system(system)}, ${vec4u(m.cg)}, ${u(m.preconditioner)});`]); // prettier-ignore
    pass.measures.push('startRz');
    pass.writes.add(x);
  }

  /** The solve whose first pass solveStart wrote: b·b = r₀·r₀ = the residual measured with it. */
  solveJoined(x: number, system: readonly number[]): void {
    const m = this.modes;
    // (Its first pass read its own particle's values only: no barrier before.)
    this.line(`solveFrom(local, ${u(x)}, ${this.system(system)}, ${vec4u(m.cg)}, ${u(m.preconditioner)}, vec3<f32>(residual2, residual2, startRz));`, false, true); // prettier-ignore
  }

  private system(system: readonly number[]): string {
    return `vec3<f32>(${system.map(this.c).join(', ')})`;
  }

  /**
   * A Newton loop, written as `begin; residual; test; while unfinished { update; residual; test }`
   * so that the loop tests at its end (the residual ops twice in the text): newtonBegin, the
   * `begin` ops, newtonResidual, the residual ops, newtonCheck, the update ops, newtonEnd.
   */
  newtonBegin(): void {
    // Without flushing: a pass open before the loop goes on with its `begin` ops.
    this.lines.push([this.depth, '{'], [this.depth + 1, 'var iteration = 0u;']);
    this.depth++;
  }

  newtonResidual(): void {
    this.flush();
    // Its text runs again after the update: written as if the update left writes pending.
    this.pending = true;
    this.newtons.push({ residual: this.lines.length, check: 0 });
  }

  /** `fraction`: the loop's step as a fraction of h (program.ts `stepFraction`). */
  newtonCheck(fraction: number): void {
    this.flush();
    this.newtons.at(-1)!.check = this.lines.length;
    this.line(`var outcome = newtonOutcome(iteration, residual2, correction2, total2, start2, ${fraction.toExponential()} * h, &firstResidual2);`); // prettier-ignore
    this.open('if (outcome == 0u) {');
    this.open('loop {');
  }

  /** `estimator`: the loop is the error estimator's (its iterations counted apart); `fraction` as newtonCheck's. */
  newtonEnd(estimator: boolean, fraction: number): void {
    this.flush();
    const { residual, check } = this.newtons.pop()!;
    this.line('iteration += 1u;');
    const shift = this.depth - this.lines[residual]![0];
    for (const [depth, text] of this.lines.slice(residual, check)) this.lines.push([depth + shift, text]);
    this.line(`outcome = newtonOutcome(iteration, residual2, correction2, total2, start2, ${fraction.toExponential()} * h, &firstResidual2);`); // prettier-ignore
    this.open('continuing {');
    this.line('break if outcome != 0u;');
    this.close();
    this.close();
    this.close();
    this.line(`newtonFailed = max(newtonFailed, newtonEnded(local, iteration, ${estimator ? '1u' : '0u'}, outcome));`); // prettier-ignore
    this.close();
    this.pending = true;
  }
}
