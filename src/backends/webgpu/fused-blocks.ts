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
 * The text depends on the program's shape only (its numbers are in the coefficient table and
 * `settings`), so programs of one shape share one pipeline (gpu-common.ts caches by text).
 */

/** The `measure` quantities as the blocks' variables (fused-interpreter.wgsl run()'s). */
const QUANTITY_VARIABLES = { residual: 'residual2', correction: 'correction2', total: 'total2' } as const;
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
/** The f32 of coefficient-table entry k at the block's step h. */
const c = (k: number): string => `coefficient(${u(k)}, h)`;

/** Lines of WGSL, each with its depth of nesting. */
type Lines = [number, string][];

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

  constructor(private readonly modes: FusedSolverModes) {}

  private line(text: string): void {
    this.lines.push([this.depth, text]);
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
    if (this.depth !== 0) throw new Error('BlockWriter: a Newton loop was left open');
    return [
      `fn ${name}(local: u32, h: f32) -> vec3<f32> {`,
      '  var newtonFailed = 0.0;',
      '  var error = vec2<f32>(0.0, 1.0);',
      // Caribou's quantities: ‖R‖², ‖δa‖², ‖Σ δa‖², ‖R₁‖².
      '  var residual2 = 0.0;',
      '  var correction2 = 0.0;',
      '  var total2 = 0.0;',
      '  var firstResidual2 = 0.0;',
      ...this.lines.map(([depth, text]) => `${'  '.repeat(1 + depth)}${text}`),
      '  return vec3<f32>(newtonFailed, error);',
      '}',
      '',
    ].join('\n');
  }

  eval(x: number, v: number, a: number, rayleighMass: number): void {
    this.line(`evaluate(local, ${u(x)}, ${u(v)}, ${u(a)}, ${c(rayleighMass)});`);
    this.line('if (local == 0u) {');
    this.line('  control.evaluations += 1u;');
    this.line('}');
  }

  /** Each output from the old values (terms as (reference, table entry), summed last first), then written. */
  combine(outputs: readonly { to: number; terms: readonly (readonly [number, number])[] }[]): void {
    this.open('{');
    this.line('var i = local;');
    this.open('loop {');
    this.open('if (i < params.particleCount) {');
    outputs.forEach((out, k) => {
      this.line(`var y${k} = vec3<f32>(0.0);`);
      for (const [vector, entry] of [...out.terms].reverse())
        this.line(`y${k} += combineTerm(${u(vector)}, ${u(entry)}, h, i);`);
    });
    outputs.forEach((out, k) => this.line(`storeVector(${u(out.to)}, i, y${k});`));
    this.close();
    this.open('continuing {');
    this.line('i += workgroupSize;');
    this.line('break if i >= params.particleCount;');
    this.close();
    this.close();
    this.close();
    this.line('storageBarrier();');
  }

  /** error (e_x, e_v), states (y_x, y_v, ŷ_x, ŷ_v), tolerances (r, a_x, a_v, w_x, w_v) as table entries. */
  norm(error: readonly number[], states: readonly number[], tolerances: readonly number[]): void {
    const [r, ax, av, wx, wv] = tolerances.map(c);
    this.line(`error = norm(local, vec2<u32>(${error.map(u).join(', ')}), ${vec4u(states)}, vec4<f32>(${r}, ${ax}, ${av}, ${wx}), ${wv});`); // prettier-ignore
  }

  jacobians(x: number, v: number): void {
    this.line(`jacobians(local, ${u(x)}, ${u(v)}, ${this.modes.exactJacobian ? '1u' : '0u'});`);
    this.line('if (local == 0u) {');
    this.line('  control.evaluations += 1u;');
    this.line('}');
  }

  /** vectors (b, v, a, w); coefficients: the eight RhsCoefficients' table entries in order. */
  rhs(vectors: readonly number[], coefficients: readonly number[]): void {
    const scales = coefficients.slice(0, 4).map(c).join(', ');
    const terms = coefficients.slice(4, 8).map(c).join(', ');
    this.line(`rhs(local, ${vec4u(vectors)}, vec4<f32>(${scales}), vec4<f32>(${terms}));`);
  }

  /** A x = b, system (α, β, γ) as table entries. */
  solve(b: number, x: number, system: readonly number[]): void {
    const m = this.modes;
    const modes = `vec2<u32>(${u(m.preconditioner)}, ${m.warmStart ? '1u' : '0u'})`;
    this.line(`solve(local, ${u(b)}, ${u(x)}, vec3<f32>(${system.map(c).join(', ')}), ${vec4u(m.cg)}, ${modes});`); // prettier-ignore
  }

  measure(quantity: FusedQuantity, vector: number): void {
    this.line(`${QUANTITY_VARIABLES[quantity]} = squaredNorm(local, ${u(vector)});`);
  }

  /**
   * A Newton loop, written as `begin; residual; test; while unfinished { update; residual; test }`
   * so that the loop tests at its end (the residual ops twice in the text): newtonBegin, the
   * `begin` ops, newtonResidual, the residual ops, newtonCheck, the update ops, newtonEnd.
   */
  newtonBegin(): void {
    this.open('{');
    this.line('var iteration = 0u;');
  }

  newtonResidual(): void {
    this.newtons.push({ residual: this.lines.length, check: 0 });
  }

  newtonCheck(): void {
    this.newtons.at(-1)!.check = this.lines.length;
    this.line('var outcome = newtonOutcome(iteration, residual2, correction2, total2, &firstResidual2);');
    this.open('if (outcome == 0u) {');
    this.open('loop {');
  }

  /** `estimator`: the loop is the error estimator's (its iterations counted apart). */
  newtonEnd(estimator: boolean): void {
    const { residual, check } = this.newtons.pop()!;
    this.line('iteration += 1u;');
    const shift = this.depth - this.lines[residual]![0];
    for (const [depth, text] of this.lines.slice(residual, check)) this.lines.push([depth + shift, text]);
    this.line('outcome = newtonOutcome(iteration, residual2, correction2, total2, &firstResidual2);');
    this.open('continuing {');
    this.line('break if outcome != 0u;');
    this.close();
    this.close();
    this.close();
    this.line(`newtonFailed = max(newtonFailed, newtonEnded(local, iteration, ${estimator ? '1u' : '0u'}, outcome));`); // prettier-ignore
    this.close();
  }
}
