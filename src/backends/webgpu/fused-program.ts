/**
 * Compiles an adaptive program (src/integrators/adaptive-programs.ts) for the fused kernel
 * (shaders/fused-adaptive.wgsl) in both its forms: the WGSL of its blocks, the ops called in
 * sequence (fused-blocks.ts), and the word stream that shaders/fused-interpreter.wgsl interprets
 * (the shader's OP_* constants, read from its source); both with a table of coefficients, each a
 * polynomial in h of degree ≤ 3 that the shader evaluates for the step it chooses itself. The
 * programs' coefficients are polynomials in h (h·b_j, h(h + r_k), …); one that is not (e.g. 2/h)
 * makes the program unsupported, and the per-op executor runs it instead.
 */
import {
  coefficientAt,
  vectorNames,
  type Coefficient,
  type NewtonQuantity,
  type Op,
  type Program,
} from '../../integrators/program.ts';
import type { RhsCoefficients, SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import { BlockWriter, type FusedQuantity, type FusedSolverModes } from './fused-blocks.ts';
import { kernels } from './kernels.ts';

/** The code of shaders/fused-adaptive.wgsl's uniform `code` (array<vec4<u32>, 1024>). */
export const FUSED_CODE_WORDS = 4096;
/** Entries of its uniform `coefficients` (array<vec4<f32>, 512>). */
export const FUSED_COEFFICIENTS = 512;

/** A program compiled for the fused kernel. */
export interface FusedCode {
  /** WGSL: runFirst, runAttempt and runAccept (fused-blocks.ts), the generated form. */
  readonly blocks: string;
  /** The interpreted form: the blocks' ops (fused-interpreter.wgsl), each block from its pc. */
  readonly words: Uint32Array;
  /** Polynomial coefficients (c₀, c₁, c₂, c₃) per entry. */
  readonly coefficients: Float32Array;
  readonly firstPc: number;
  readonly attemptPc: number;
  readonly acceptPc: number;
  /** Arena slot of each work vector (x and v are the state buffers). */
  readonly slots: ReadonlyMap<string, number>;
  /** The linear solve's modes (both forms: literals in the blocks, `settings` for the interpreter). */
  readonly modes: FusedSolverModes;
}

/** Thrown while compiling a program the fused kernel cannot run; the message says why. */
export class FusedUnsupported extends Error {}

/** A value of shaders/fused-adaptive.wgsl's `const NAME: u32 = …u;`. */
function opcode(name: string): number {
  const value = kernels().fusedAdaptive.constants.get(name);
  if (value === undefined) throw new Error(`shaders/fused-adaptive.wgsl declares no const ${name}`);
  return value;
}

const QUANTITIES: Partial<Record<NewtonQuantity, string>> = {
  residual: 'Q_RESIDUAL',
  correction: 'Q_CORRECTION',
  total: 'Q_TOTAL',
  start: 'Q_START',
};

const RHS_ORDER: readonly (keyof RhsCoefficients)[] = [
  'forceScale',
  'extraScale',
  'velocityMass',
  'accelerationMass',
  'velocityStiffness',
  'accelerationStiffness',
  'velocityDamping',
  'accelerationDamping',
];

/**
 * (c₀, c₁, c₂, c₃) with f(h) = c₀ + c₁ h + c₂ h² + c₃ h³, from f at h = 0, 1, 2, 3 (Newton's
 * divided differences), checked at three other steps to 10⁻⁹ relative; throws FusedUnsupported.
 */
export function polynomialOf(f: (h: number) => number, what: string): [number, number, number, number] {
  const [y0, y1, y2, y3] = [0, 1, 2, 3].map(f) as [number, number, number, number];
  // Divided differences at nodes 0, 1, 2, 3, then expanded to the monomial basis.
  const d1 = y1 - y0;
  const d2 = (y2 - 2 * y1 + y0) / 2;
  const d3 = (y3 - 3 * y2 + 3 * y1 - y0) / 6;
  // y0 + d1 h + d2 h(h − 1) + d3 h(h − 1)(h − 2)
  const c: [number, number, number, number] = [y0, d1 - d2 + 2 * d3, d2 - 3 * d3, d3];
  for (const h of [0.37, 1.9, 7.5]) {
    const expected = f(h);
    const value = c[0] + h * (c[1] + h * (c[2] + h * c[3]));
    if (!(Math.abs(value - expected) <= 1e-9 * Math.max(1, Math.abs(expected))))
      throw new FusedUnsupported(`${what} is not a polynomial of degree ≤ 3 in h`);
  }
  return c;
}

/** Compiles `program`'s adaptive blocks; throws FusedUnsupported for what the kernel lacks. */
export function compileFused(program: Program): FusedCode {
  const adaptive = program.adaptive;
  if (!adaptive) throw new FusedUnsupported('the program is not adaptive');
  if (Object.keys(program.rings).length > 0) throw new FusedUnsupported('the program has rings');
  const solver = program.implicit?.solver;
  if (solver === 'jacobi' || solver === 'multigrid')
    throw new FusedUnsupported(`solver '${solver}' has no fused form`);
  const slots = new Map<string, number>();
  for (const name of vectorNames(program)) if (name !== 'x' && name !== 'v') slots.set(name, slots.size);
  const implicit = program.implicit;
  // CG's vectors in the arena (programs with a linear system allocate them: vectorNames).
  const cg = ['cg.r', 'cg.p', 'cg.s', 'cg.u'].map((name) => (slots.has(name) ? 2 + slots.get(name)! : 0));
  const modes: FusedSolverModes = {
    cg: cg as [number, number, number, number],
    preconditioner: !implicit || implicit.solver === 'cg' ? 0 : implicit.preconditioner === 'block' ? 2 : 1,
    warmStart: implicit?.warmStart === true,
    exactJacobian: implicit?.jacobian === 'exact',
  };
  const compiler = new Compiler(slots, modes);
  const [firstPc, first] = compiler.block(adaptive.first, 'runFirst');
  const [attemptPc, attempt] = compiler.block(adaptive.attempt, 'runAttempt');
  const [acceptPc, accept] = compiler.block(adaptive.accept, 'runAccept');
  const blocks = [first, attempt, accept].join('\n');
  return { ...compiler.finish(), blocks, firstPc, attemptPc, acceptPc, slots, modes };
}

/** Walks a program's ops once, writing both forms: the word stream and (`wgsl`) the blocks. */
class Compiler {
  private readonly words: number[] = [];
  private readonly table: number[][] = [];
  private readonly known = new Map<Coefficient, number>();
  private wgsl: BlockWriter;

  constructor(
    private readonly slots: ReadonlyMap<string, number>,
    private readonly modes: FusedSolverModes,
  ) {
    this.wgsl = this.writer();
  }

  private writer(): BlockWriter {
    return new BlockWriter(this.modes, (k) => this.table[k]!.every((c) => c === 0));
  }

  finish(): { words: Uint32Array; coefficients: Float32Array } {
    if (this.words.length > FUSED_CODE_WORDS)
      throw new FusedUnsupported(`the program needs ${this.words.length} code words (at most ${FUSED_CODE_WORDS})`);
    if (this.table.length > FUSED_COEFFICIENTS)
      throw new FusedUnsupported(`the program needs ${this.table.length} coefficients (at most ${FUSED_COEFFICIENTS})`);
    const words = new Uint32Array(FUSED_CODE_WORDS);
    words.set(this.words);
    const coefficients = new Float32Array(4 * FUSED_COEFFICIENTS);
    this.table.forEach((c, k) => coefficients.set(c, 4 * k));
    return { words, coefficients };
  } // prettier-ignore

  /** Compiles `ops` then END; returns where they start and their WGSL function `name`. */
  block(ops: readonly Op[], name: string): [number, string] {
    const start = this.words.length;
    this.wgsl = this.writer();
    for (const op of ops) this.op(op);
    this.words.push(opcode('OP_END'));
    return [start, this.wgsl.finish(name)];
  }

  private ref(name: string): number {
    if (name === 'x') return 0;
    if (name === 'v') return 1;
    const slot = this.slots.get(name);
    if (slot === undefined) throw new Error(`program vector '${name}' was not allocated`);
    return 2 + slot;
  }

  private coefficient(c: Coefficient, what: string): number {
    let k = this.known.get(c);
    if (k === undefined) {
      k = this.table.length;
      this.table.push(typeof c === 'number' ? [c, 0, 0, 0] : polynomialOf((h) => coefficientAt(c, h), what));
      this.known.set(c, k);
    }
    return k;
  }

  /** The fields of a coefficient record as functions of h (each its own table entry). */
  private fields<T extends object>(of: (h: number) => T, keys: readonly (keyof T & string)[], what: string): number[] {
    return keys.map((key) => this.coefficient(polynomialFunction(of, key), `${what}.${key}`));
  } // prettier-ignore

  private op(op: Op): void {
    const w = this.words;
    switch (op.op) {
      case 'eval': {
        const args = [this.ref(op.x), this.ref(op.v), this.ref(op.a), this.coefficient(op.rayleighMass, 'rayleighMass')] as const; // prettier-ignore
        w.push(opcode('OP_EVAL'), ...args);
        this.wgsl.eval(...args);
        return;
      }
      case 'combine': {
        // Terms whose coefficient is 0 for every h add nothing (the CPU drops zero terms too).
        const outputs = op.outputs.map((out) => ({
          to: this.ref(out.to),
          terms: out.terms
            .filter(([c]) => c !== 0)
            .map(([c, name]) => [this.ref(name), this.coefficient(c, `combine → ${out.to}`)] as const),
        }));
        w.push(opcode('OP_COMBINE'), outputs.length);
        for (const out of outputs) w.push(out.to, out.terms.length, ...out.terms.flat());
        this.wgsl.combine(outputs);
        return;
      }
      case 'norm': {
        const t = op.tolerances;
        const tolerances = [
          t.relative,
          t.absolutePosition,
          t.absoluteVelocity,
          t.positionWeight,
          t.velocityWeight,
        ];
        const error = op.error.map((n) => this.ref(n));
        // The states as fused-ops.wgsl norm takes them: (y_x, y_v, ŷ_x, ŷ_v).
        const states = [...op.start, ...op.end].map((n) => this.ref(n));
        const entries = tolerances.map((c) => this.coefficient(c, 'tolerance'));
        w.push(opcode('OP_NORM'), ...error, ...states, ...entries);
        this.wgsl.norm(error, states, entries);
        return;
      }
      case 'jacobians':
        w.push(opcode('OP_JACOBIANS'), this.ref(op.x), this.ref(op.v));
        this.wgsl.jacobians(this.ref(op.x), this.ref(op.v));
        return;
      case 'rhs': {
        const vectors = [this.ref(op.to), this.ref(op.v), this.ref(op.a), this.ref(op.extra)];
        const coefficients = this.fields(op.coefficients, RHS_ORDER, 'rhs');
        w.push(opcode('OP_RHS'), ...vectors, ...coefficients);
        this.wgsl.rhs(vectors, coefficients);
        return;
      }
      case 'solve': {
        const system = this.systemFields(op);
        w.push(opcode('OP_SOLVE'), this.ref(op.rhs), this.ref(op.to), ...system);
        this.wgsl.solve(this.ref(op.rhs), this.ref(op.to), system);
        return;
      }
      case 'measure': {
        const entries = Object.entries(op.quantities);
        w.push(opcode('OP_MEASURE'), entries.length);
        for (const [quantity, name] of entries) {
          const constant = QUANTITIES[quantity as NewtonQuantity];
          if (!constant) throw new FusedUnsupported(`the Newton quantity '${quantity}' has no fused form`);
          w.push(opcode(constant), this.ref(name));
          this.wgsl.measure(quantity as FusedQuantity, this.ref(name));
        }
        return;
      }
      case 'newton':
        return this.newton(op);
      default:
        throw new FusedUnsupported(`the op '${op.op}' has no fused form`);
    }
  }

  /**
   * BEGIN, begin; L: residual, CHECK (→ E when done), update, NEXT (→ L); E. The blocks' WGSL
   * (not the words) may move two things into the residual's last pass (NewtonJoin): the update's
   * closing `measure`, and the first pass of its opening `solve`; each pass's reduction waits at
   * three barriers, and on SwiftShader a barrier costs as much as a pass over a few particles.
   */
  private newton(op: Extract<Op, { op: 'newton' }>): void {
    if (op.criterion !== 'caribou') throw new FusedUnsupported(`the Newton criterion '${op.criterion}' has no fused form`); // prettier-ignore
    const w = this.words;
    const join = this.join(op);
    w.push(opcode('OP_NEWTON_BEGIN'));
    this.wgsl.newtonBegin();
    for (const inner of op.begin) this.op(inner);
    const loop = w.length;
    this.wgsl.newtonResidual();
    for (const inner of op.residual) this.op(inner);
    if (join.measure) this.wgslOnly(join.measure);
    if (join.solve) {
      const s = join.solve;
      this.wgsl.solveStart(this.ref(s.rhs), this.ref(s.to), this.systemFields(s));
    }
    const check = w.length;
    const fraction = op.stepFraction ?? 1;
    w.push(opcode('OP_NEWTON_CHECK'), op.estimator ? 1 : 0, 0, new Uint32Array(new Float32Array([fraction]).buffer)[0]!); // prettier-ignore
    this.wgsl.newtonCheck(fraction);
    for (const inner of op.update) {
      if (inner === join.measure) this.wordsOnly(inner);
      else if (inner === join.solve) {
        this.wordsOnly(inner);
        this.wgsl.solveJoined(this.ref(inner.to), this.systemFields(inner));
      } else this.op(inner);
    }
    w.push(opcode('OP_NEWTON_NEXT'), loop);
    this.wgsl.newtonEnd(op.estimator === true, fraction);
    w[check + 2] = w.length;
  }

  /**
   * What of a Newton loop's update can run in its residual's last pass (an rhs then a measure of
   * its b as the residual; the reduction has four components):
   * - `measure`, the update's last op, when the residual writes none of its vectors: Caribou's test
   *   reads its sums only after the residual (measured before the first update too, unread then);
   * - `solve`, the update's first op, of that b from x₀ = 0 (not warm): its first pass reads b,
   *   the spring states and masses at its own particle only. It runs after the moved measure,
   *   whose vectors it may overwrite (x).
   */
  private join(op: Extract<Op, { op: 'newton' }>): NewtonJoin {
    const [rhs, residual] = op.residual.slice(-2);
    if (rhs?.op !== 'rhs' || residual?.op !== 'measure' || residual.quantities.residual !== rhs.to) return {};
    let used = Object.keys(residual.quantities).length;
    const join: NewtonJoin = {};
    const last = op.update.at(-1);
    const written = new Set(op.residual.flatMap(writes));
    if (last?.op === 'measure' && op.update.length > 1 && !Object.values(last.quantities).some((n) => written.has(n))) {
      const count = Object.keys(last.quantities).length;
      if (used + count <= 4) [join.measure, used] = [last, used + count];
    } // prettier-ignore
    const first = op.update[0];
    // (Not what the residual's ops read at other particles, maybe in that pass.)
    const cg = ['cg.r', 'cg.p', 'cg.s', 'cg.u', first?.op === 'solve' ? first.to : ''];
    const free = !op.residual.flatMap(crossReads).some((n) => cg.includes(n));
    if (first?.op === 'solve' && first.rhs === rhs.to && !this.modes.warmStart && free && used < 4)
      join.solve = first;
    return join;
  }

  private systemFields(op: Extract<Op, { op: 'solve' }>): number[] {
    return this.fields<SystemCoefficients>(op.system, ['mass', 'damping', 'stiffness'], 'system');
  }

  /** `op`'s words and table entries, without its WGSL (written otherwise). */
  private wordsOnly(op: Op): void {
    const wgsl = this.wgsl;
    this.wgsl = this.writer();
    this.op(op);
    this.wgsl = wgsl;
  }

  /** `op`'s WGSL, without its words. */
  private wgslOnly(op: Op): void {
    const length = this.words.length;
    this.op(op);
    this.words.length = length;
  }
}

/** Ops of a Newton loop's update that its blocks run in the residual's last pass (Compiler.join). */
interface NewtonJoin {
  measure?: Extract<Op, { op: 'measure' }>;
  solve?: Extract<Op, { op: 'solve' }>;
}

/** The vectors an op of the fused form reads at other particles than the one it writes. */
function crossReads(op: Op): string[] {
  if (op.op === 'eval' || op.op === 'jacobians') return [op.x, op.v];
  return op.op === 'rhs' ? [op.v, op.a] : [];
}

/** The vectors an op of the fused form writes (a `newton`'s blocks' too). */
function writes(op: Op): string[] {
  switch (op.op) {
    case 'eval':
      return [op.a];
    case 'combine':
      return op.outputs.map((out) => out.to);
    case 'rhs':
      return [op.to];
    case 'solve':
      return [op.to, 'cg.r', 'cg.p', 'cg.s', 'cg.u'];
    case 'newton':
      return [...op.begin, ...op.residual, ...op.update].flatMap(writes);
    default:
      return [];
  }
}

/**
 * `h ↦ of(h)[key]`, one function per (of, key) so that the table shares it between ops that use
 * the same record function.
 */
const fieldFunctions = new WeakMap<object, Map<string, (h: number) => number>>();
function polynomialFunction<T extends object>(of: (h: number) => T, key: keyof T & string): (h: number) => number {
  let byKey = fieldFunctions.get(of);
  if (!byKey) fieldFunctions.set(of, (byKey = new Map()));
  let f = byKey.get(key);
  if (!f) byKey.set(key, (f = (h: number) => of(h)[key] as number));
  return f;
} // prettier-ignore
