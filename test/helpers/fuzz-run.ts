/**
 * One fuzz case run through Weft's public API, and what counts as a pass (test/fuzz.test.ts,
 * `npm run fuzz`). A case is plain data (so that it can be posted to the worker that runs the CPU
 * cases, printed and shrunk): a model source, the options of createSimulation and a few calls on
 * the simulation. Values that plain data cannot hold (a Symbol, a function, a null-prototype
 * object, a 10⁵-deep array, …) are written as `{ $weird: … }` tokens and made here.
 *
 * A case passes when it ends in a result that passes the checks (every state read is finite and
 * the right length, its step count is the number of steps taken, a call after destroy() throws)
 * or in a thrown WeftError (a WeftInputError naming its field). Anything else — another error, a
 * state that is wrong, a message of kilobytes — is a failure.
 */
import {
  buildCloth,
  buildRope,
  createModel,
  createSimulation,
  energy,
  INTEGRATORS,
  parseScene,
  WeftError,
  type Model,
  type ModelDescription,
  type Simulation,
  type SimulationOptions,
} from '../../src/index.ts';

/** A value plain data cannot hold, made by {@link materialize}. */
export type Weird =
  | { $weird: 'symbol' | 'function' | 'null-proto' | 'bigint' | 'date' | 'cycle' | 'map' }
  | { $weird: 'sparse'; length: number }
  | { $weird: 'array-like'; length: number; fill: unknown }
  | { $weird: 'typed'; values: number[] }
  | { $weird: 'huge'; length: number; fill: unknown }
  | { $weird: 'deep'; depth: number; shape: 'array' | 'object'; leaf: unknown };

/** An edit of a scene's JSON text. */
export type TextEdit =
  | { edit: 'bom' }
  | { edit: 'truncate'; at: number }
  | { edit: 'insert'; at: number; text: string }
  | { edit: 'number'; index: number; text: string }
  | { edit: 'wrap'; depth: number };

/** Where the model comes from: each public way of making one. */
export type ModelSource =
  | { kind: 'description'; description: unknown }
  | { kind: 'cloth'; options: unknown }
  | { kind: 'rope'; options: unknown }
  | { kind: 'scene'; scene: unknown }
  | { kind: 'scene-text'; scene: unknown; edits: TextEdit[] };

/** createSimulation's second argument: left out, any value, or an object built from entries. */
export type OptionsSource =
  { kind: 'absent' } | { kind: 'value'; value: unknown } | { kind: 'entries'; entries: [string, unknown][] };

/** A call on the simulation. `grid` is k steps past the steps taken so far (k·dt). */
export type Op =
  | { op: 'step'; n?: unknown }
  | { op: 'advance'; n: unknown }
  | { op: 'advanceTo'; grid: number }
  | { op: 'advanceTo'; t: unknown }
  | { op: 'readState' }
  | { op: 'readSolverStats' }
  | { op: 'finished' }
  | { op: 'destroy' };

export interface FuzzCase {
  model: ModelSource;
  options: OptionsSource;
  ops: Op[];
}

/** The marker of the options' `device` that the GPU runner replaces with its shared device. */
export const SHARED_DEVICE = '$shared-device';

export type FailureKind = 'crash' | 'hang' | 'garbage' | 'unnamed-field' | 'long-message' | 'uncaptured-gpu';

/** How a case ended. */
export interface Outcome {
  kind: 'result' | 'weft-error' | 'json-syntax' | 'failure';
  /** Where it ended: making the model, creating the simulation, or the calls on it. */
  stage: 'model' | 'simulation' | 'run';
  /** WeftError: its code ('input', 'divergence', …); failure: the failure's kind. */
  code?: string;
  failure?: FailureKind;
  /** The error's name (WeftInputError, TypeError, …). */
  name?: string;
  field?: string;
  /** The error's message or what the check found, cut to 400 characters. */
  message?: string;
  /** The integrator of a simulation that was created. */
  integrator?: string;
  /** Steps of the last state read (0 when none was read). */
  steps: number;
  /** Observations that are not failures, e.g. a WeftDivergenceError on the initial state. */
  notes: string[];
  ms: number;
}

/** Longest acceptable error message: one line a person reads, not a dump of the input. */
export const MAX_MESSAGE = 2000;

const cut = (text: string, length = 400): string =>
  text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text;

/** `value` with every `{ $weird }` token made into what it stands for (arrays and objects copied). */
export function materialize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(materialize);
  if (typeof value !== 'object' || value === null) return value;
  const weird = value as { $weird?: unknown };
  if (typeof weird.$weird === 'string') return makeWeird(value as Weird);
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value))
    Object.defineProperty(copy, key, { value: materialize(entry), enumerable: true, writable: true, configurable: true }); // prettier-ignore
  return copy;
}

function makeWeird(token: Weird): unknown {
  switch (token.$weird) {
    case 'symbol':
      return Symbol('fuzz');
    case 'function':
      return () => 1;
    case 'null-proto':
      return Object.create(null) as object;
    case 'bigint':
      return 10n;
    case 'date':
      return new Date(0);
    case 'map':
      return new Map([[0, 1]]);
    case 'cycle': {
      const cycle: Record<string, unknown> = { positions: [0, 0, 0] };
      cycle['self'] = cycle;
      return [cycle];
    }
    case 'sparse':
      return new Array<number>(token.length);
    case 'array-like': {
      const like: Record<string, unknown> = { length: token.length };
      for (let i = 0; i < Math.min(token.length, 64); i++) like[i] = materialize(token.fill);
      return like;
    }
    case 'typed':
      return Float32Array.from(token.values);
    case 'huge':
      return new Array<unknown>(token.length).fill(materialize(token.fill));
    case 'deep': {
      let nested = materialize(token.leaf);
      for (let d = 0; d < token.depth; d++) nested = token.shape === 'array' ? [nested] : { a: nested };
      return nested;
    }
  }
}

/** JSON text of plain data whose `deep`, `huge` and `sparse` tokens are written out (as text, without recursing). */
function toJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const token = value as Weird;
    if (token.$weird === 'deep') {
      const [open, close] = token.shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
      return open.repeat(token.depth) + toJson(token.leaf) + close.repeat(token.depth);
    }
    if (token.$weird === 'huge')
      return `[${new Array<string>(token.length).fill(toJson(token.fill)).join(',')}]`;
    if (token.$weird === 'sparse') return `[${new Array<string>(token.length).fill('null').join(',')}]`;
    return `{${Object.entries(value).map(([key, entry]) => `${JSON.stringify(key)}:${toJson(entry)}`).join(',')}}`; // prettier-ignore
  }
  return JSON.stringify(value) ?? 'null';
}

/** A scene's JSON text after `edits`, as a file a user might hand the CLI. */
export function sceneText(scene: unknown, edits: readonly TextEdit[]): string {
  let text = toJson(scene);
  for (const edit of edits) {
    switch (edit.edit) {
      case 'bom':
        text = `\uFEFF${text}`;
        break;
      case 'truncate':
        text = text.slice(0, Math.floor(edit.at * text.length));
        break;
      case 'insert': {
        const at = Math.floor(edit.at * text.length);
        text = text.slice(0, at) + edit.text + text.slice(at);
        break;
      }
      case 'number': {
        const numbers = [...text.matchAll(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g)];
        const match = numbers.length > 0 ? numbers[edit.index % numbers.length] : undefined;
        if (match?.index !== undefined)
          text = text.slice(0, match.index) + edit.text + text.slice(match.index + match[0].length);
        break;
      }
      case 'wrap':
        text = '['.repeat(edit.depth) + text + ']'.repeat(edit.depth);
        break;
    }
  }
  return text;
}

/** The model of a source; `null` when its text is not JSON (the caller's parser refused it). */
export function makeModel(source: ModelSource): Model | null {
  switch (source.kind) {
    case 'description':
      return createModel(materialize(source.description) as ModelDescription);
    case 'cloth':
      return buildCloth(materialize(source.options) as Parameters<typeof buildCloth>[0]);
    case 'rope':
      return buildRope(materialize(source.options) as Parameters<typeof buildRope>[0]);
    case 'scene':
      return parseScene(materialize(source.scene));
    case 'scene-text': {
      // As `weft run` reads a file: a UTF-8 byte-order mark is not part of the JSON.
      const text = sceneText(source.scene, source.edits).replace(/^\uFEFF/, '');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return null;
      }
      return parseScene(json);
    }
  }
}

/** The options object of a case (an own property per entry, `__proto__` included). */
export function makeOptions(source: OptionsSource, device?: GPUDevice): unknown {
  if (source.kind === 'absent') return undefined;
  if (source.kind === 'value') return materialize(source.value);
  const options: Record<string, unknown> = {};
  for (const [key, value] of source.entries) {
    const made = key === 'device' && value === SHARED_DEVICE && device ? device : materialize(value);
    Object.defineProperty(options, key, { value: made, enumerable: true, writable: true, configurable: true }); // prettier-ignore
  }
  return options;
}

/** A step count Weft must accept (undefined: step()'s default of 1). */
function stepCount(n: unknown): number | null {
  if (n === undefined) return 1;
  return Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : null;
}

class CheckFailure extends Error {}

/** Why `state` (read after `steps` steps of a fixed-step simulation, or any adaptive one) is wrong, or ''. */
function stateProblem(
  simulation: Simulation,
  state: unknown,
  expectedSteps: number | null,
  initialEnergyFinite: boolean,
): string {
  const model = simulation.model;
  const s = state as { step?: unknown; time?: unknown; positions?: unknown; velocities?: unknown };
  if (typeof state !== 'object' || state === null) return `readState() returned ${String(state)}`;
  for (const key of ['positions', 'velocities'] as const) {
    const values = s[key];
    if (!(values instanceof Float64Array)) return `state.${key} is not a Float64Array`;
    if (values.length !== 3 * model.particleCount)
      return `state.${key} has ${values.length} entries for ${model.particleCount} particles`;
    const bad = values.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) return `state.${key}[${bad}] = ${values[bad]} returned without WeftDivergenceError`;
  }
  if (typeof s.step !== 'number' || !Number.isInteger(s.step) || s.step < 0)
    return `state.step is ${String(s.step)}`;
  if (expectedSteps !== null && s.step !== expectedSteps)
    return `state.step is ${s.step} after ${expectedSteps} steps`;
  if (typeof s.time !== 'number' || !Number.isFinite(s.time) || s.time < 0) return `state.time is ${String(s.time)}`; // prettier-ignore
  if (expectedSteps !== null && Math.abs(s.time - s.step * simulation.dt) > 1e-9 * Math.max(1, s.time))
    return `state.time is ${s.time} at step ${s.step} with dt ${simulation.dt}`;
  if (initialEnergyFinite) {
    const e = energy(model, s.positions as Float64Array, s.velocities as Float64Array).total;
    if (!Number.isFinite(e)) return `the state's energy is ${e} (returned without WeftDivergenceError)`;
  }
  return '';
}

/** A WeftError is a pass; anything else a failure. */
function fromError(
  error: unknown,
  stage: Outcome['stage'],
  base: Pick<Outcome, 'integrator' | 'steps' | 'notes'>,
): Omit<Outcome, 'ms'> {
  // prettier-ignore
  if (error instanceof CheckFailure)
    return { ...base, kind: 'failure', stage, failure: 'garbage', code: 'garbage', name: 'check', message: error.message };
  if (error instanceof WeftError) {
    const message = String(error.message);
    const named = { ...base, stage, name: error.name, field: error.field, message: cut(message) };
    if (message.length > MAX_MESSAGE)
      return { ...named, kind: 'failure', failure: 'long-message', code: 'long-message' };
    if (error.code === 'input' && (error.field === '' || !message.startsWith(`${error.field}: `)))
      return { ...named, kind: 'failure', failure: 'unnamed-field', code: 'unnamed-field' };
    if (message.includes('\n')) base.notes.push('multi-line message');
    if (error.code === 'divergence' && (error.details as { step?: number }).step === 0)
      base.notes.push('divergence at step 0');
    return { ...named, kind: 'weft-error', code: error.code };
  }
  const e = error as { name?: unknown; message?: unknown; stack?: unknown };
  const stack = typeof e?.stack === 'string' ? e.stack.split('\n').slice(0, 4).join(' | ') : '';
  return {
    ...base,
    kind: 'failure',
    stage,
    failure: 'crash',
    code: 'crash',
    name: typeof e?.name === 'string' ? e.name : typeof error,
    message: cut(stack || (typeof e?.message === 'string' ? e.message : String(error))),
  };
}

/**
 * Runs one case to its end. `device` (the GPU runner's shared device) replaces the
 * {@link SHARED_DEVICE} marker; the CPU worker has none.
 */
export async function runCase(fuzzCase: FuzzCase, device?: GPUDevice): Promise<Outcome> {
  const started = performance.now();
  const base: Pick<Outcome, 'integrator' | 'steps' | 'notes'> = { steps: 0, notes: [] };
  let stage: Outcome['stage'] = 'model';
  let simulation: Simulation | undefined;
  let outcome: Omit<Outcome, 'ms'>;
  try {
    const model = makeModel(fuzzCase.model);
    if (model === null) return { ...base, kind: 'json-syntax', stage, ms: performance.now() - started };
    stage = 'simulation';
    const options = makeOptions(fuzzCase.options, device) as SimulationOptions;
    simulation = await createSimulation(model, options);
    base.integrator = simulation.integrator;
    stage = 'run';
    outcome = await runOps(simulation, fuzzCase.ops, base);
  } catch (error) {
    outcome = fromError(error, stage, base);
  } finally {
    try {
      simulation?.destroy();
    } catch (error) {
      outcome = fromError(error, 'run', base);
    }
  }
  return { ...outcome, ms: performance.now() - started };
}

/** The calls of a case, each checked; a WeftInputError leaves the simulation usable, so the calls go on. */
async function runOps(
  simulation: Simulation,
  ops: readonly Op[],
  base: Pick<Outcome, 'integrator' | 'steps' | 'notes'>,
): Promise<Omit<Outcome, 'ms'>> {
  const adaptive = INTEGRATORS[simulation.integrator].family === 'adaptive';
  const model = simulation.model;
  const initialEnergyFinite = Number.isFinite(energy(model, model.particlePositions, model.particleVelocities).total); // prettier-ignore
  let expected = 0;
  let destroyed = false;
  const read = async (): Promise<void> => {
    const state = await simulation.readState();
    if (destroyed) throw new CheckFailure('readState() after destroy() returned a state');
    const problem = stateProblem(simulation, state, adaptive ? null : expected, initialEnergyFinite);
    if (problem) throw new CheckFailure(problem);
    if (adaptive && state.step !== expected)
      throw new CheckFailure(`state.step is ${state.step} after ${expected} accepted steps`);
    base.steps = state.step;
  };
  // The calls, then a last read that checks the state (or, after destroy(), that it is refused).
  for (const op of [...ops, { op: 'readState' } as const]) {
    try {
      switch (op.op) {
        case 'step': {
          const n = stepCount(op.n);
          if (op.n === undefined) simulation.step();
          else simulation.step(op.n as number);
          if (adaptive) throw new CheckFailure('step() of an adaptive simulation returned (it must refuse)'); // prettier-ignore
          if (n === null) throw new CheckFailure(`step(${String(op.n)}) was accepted`);
          expected += n;
          break;
        }
        case 'advance': {
          const n = op.n === undefined ? null : stepCount(op.n);
          await simulation.advance(op.n as number);
          if (n === null) throw new CheckFailure(`advance(${String(op.n)}) was accepted`);
          expected += n;
          break;
        }
        case 'advanceTo': {
          // An adaptive run to a time may take any number of steps: only refusals are tried.
          const t = 'grid' in op ? (expected + op.grid) * simulation.dt : op.t;
          const time = adaptive ? ((simulation as { time?: number }).time ?? 0) : expected * simulation.dt;
          if (adaptive && !destroyed && typeof t === 'number' && Number.isFinite(t) && t >= time) break;
          await simulation.advanceTo(t as number);
          const k = typeof t === 'number' ? t / simulation.dt - expected : NaN;
          const onGrid = Number.isFinite(k) && k > -0.5 && Math.abs(k - Math.round(k)) <= 1e-9 * Math.max(1, Math.abs(k)); // prettier-ignore
          if (adaptive || !onGrid || !Number.isSafeInteger(Math.round(k)))
            throw new CheckFailure(`advanceTo(${String(t)}) was accepted at step ${expected} (dt ${simulation.dt})`); // prettier-ignore
          expected += Math.round(k);
          break;
        }
        case 'readState':
          await read();
          break;
        case 'readSolverStats': {
          const stats = await simulation.readSolverStats();
          if (stats !== null && typeof stats !== 'object') throw new CheckFailure(`readSolverStats() returned ${String(stats)}`); // prettier-ignore
          break;
        }
        case 'finished':
          await simulation.finished();
          break;
        case 'destroy':
          simulation.destroy();
          destroyed = true;
          continue;
      }
      if (destroyed) throw new CheckFailure(`${op.op}() after destroy() returned`);
    } catch (error) {
      if (destroyed && error instanceof WeftError && error.code === 'destroyed') continue;
      // A refused argument leaves the simulation as it was: go on with the next call.
      if (error instanceof WeftError && error.code === 'input' && op.op !== 'readState') {
        const refused = fromError(error, 'run', base);
        if (refused.kind === 'failure') return refused;
        continue;
      }
      return fromError(error, 'run', base);
    }
  }
  return { ...base, kind: 'result', stage: 'run' };
}
