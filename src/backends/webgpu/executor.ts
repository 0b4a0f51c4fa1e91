/**
 * The WebGPU executor: compiles a program (src/integrators/program.ts) once into dispatches of
 * three kernels — program-forces + program-gather for `eval`, program-combine for `combine` —
 * each with its own small uniform, and encodes them into the caller's compute pass. `rotate` costs
 * nothing on the GPU: a ring entry is resolved to its slot at compile time, one compiled variant
 * per ring position. No readback: the CPU never waits on the GPU inside a step.
 */
import { WeftInputError } from '../../core/errors.ts';
import type { CorrectorStats } from '../cpu/executor.ts';
import type { Model } from '../../model/model.ts';
import {
  coefficientAt,
  MAX_TERMS,
  parseRingEntry,
  vectorNames,
  type Coefficient,
  type Op,
  blockOps,
  type Block,
  type Program,
} from '../../integrators/program.ts';
import {
  bindByName,
  bufferFactory,
  dispatchSize,
  pipeline,
  springBytes,
  VEC4_BYTES,
  vec4Bytes,
  finishNorm,
  readPair,
  readBuffer,
} from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes, type StructLayout } from './layout.ts';

interface Dispatch {
  readonly label: string;
  /** Byte offset of its indirect arguments in the corrector's control buffer, if indirect. */
  readonly indirect?: number;
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly threads: number;
}

/** A uniform whose values depend on h (combination coefficients), rewritten by setStep(). */
interface StepUniform {
  readonly buffer: GPUBuffer;
  readonly layout: StructLayout;
  readonly values: (h: number) => Record<string, number | readonly number[]>;
}

/** A mode of program-control.wgsl (BEGIN, DECIDE, END), read from its WGSL constants. */
const controlMode = (name: 'BEGIN' | 'DECIDE' | 'END'): number =>
  kernels().programControl.constants.get(name)!;

export class WebGpuExecutor {
  /** vec4<f32> per particle (w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  readonly positions: GPUBuffer;
  readonly velocities: GPUBuffer;
  /** Evaluations of a(x, v) encoded so far. */
  evaluations = 0;
  private readonly buffers: GPUBuffer[] = [];
  private readonly create: ReturnType<typeof bufferFactory>;
  private readonly shared: Record<string, GPUBuffer>;
  /** Arena slot of each plain work vector, and the first slot of each ring. */
  private readonly slots = new Map<string, number>();
  private readonly heads = new Map<string, number>();
  private readonly compiled = new Map<
    string,
    { dispatches: Dispatch[]; heads: Map<string, number>; evaluations: number }
  >();
  private readonly stepUniforms: StepUniform[] = [];
  private h: number;
  /** Particles the error norm counts (the free ones). */
  private readonly freeParticles: number;
  /** Workgroups of a per-particle dispatch: one partial of the error norm each. */
  private readonly partialCount: number;
  private readonly partialReadback: GPUBuffer;

  constructor(
    readonly device: GPUDevice,
    private readonly model: Model,
    private readonly program: Program,
    h: number,
    private readonly workgroupSize: number,
  ) {
    this.h = h;
    const n = model.particleCount;
    const [gx, gy] = dispatchSize(n, workgroupSize, device.limits);
    this.partialCount = gx * gy;
    this.freeParticles = model.particleInvMass.filter((w) => w > 0).length;
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    this.create = bufferFactory(device, 'WebGpuExecutor', this.buffers);
    let slot = 0;
    for (const name of vectorNames(program))
      if (name !== 'x' && name !== 'v' && !parseRingEntry(name)) this.slots.set(name, slot++);
    for (const [ring, length] of Object.entries(program.rings)) {
      this.slots.set(ring, slot);
      this.heads.set(ring, 0);
      slot += length;
    }
    const arenaBytes = Math.max(1, slot) * n * VEC4_BYTES;
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (arenaBytes > limit)
      throw new WeftInputError(
        'model',
        `too large for this device: the scheme's ${slot} work vectors need ${arenaBytes} bytes, the device allows ${limit} per storage buffer`,
      );
    this.positions = this.create(
      'positions',
      n * VEC4_BYTES,
      storage | GPUBufferUsage.VERTEX,
      vec4Bytes(model.particlePositions, 1),
    );
    this.velocities = this.create(
      'velocities',
      n * VEC4_BYTES,
      storage,
      vec4Bytes(model.particleVelocities, 0),
    );
    const { offsets, entries } = model.incidence;
    const springData = springBytes(model);
    this.shared = {
      params: this.create(
        'params',
        32,
        GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
        structBytes(kernels().programForces.structs.get('SimParams')!, {
          particleCount: n,
          springCount: model.springCount,
          gravity: model.gravity,
          rayleighMass: 0,
        }),
      ),
      positions: this.positions,
      velocities: this.velocities,
      arena: this.create('arena', arenaBytes, storage),
      springs: this.create('springs', springData.byteLength, storage, springData),
      springForces: this.create('springForces', model.springCount * VEC4_BYTES, storage),
      incidentOffsets: this.create('incidentOffsets', offsets.byteLength, storage, offsets.slice().buffer),
      incidentSprings: this.create('incidentSprings', entries.byteLength, storage, entries.slice().buffer),
      particleInvMass: this.create(
        'particleInvMass',
        n * 4,
        storage,
        Float32Array.from(model.particleInvMass).buffer,
      ),
      partials: this.create('partials', this.partialCount * VEC4_BYTES, storage),
      control: this.createControl(),
    };
    this.partialReadback = this.create(
      'partialReadback',
      this.partialCount * VEC4_BYTES,
      GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    );
  }

  /** The corrector's control (program-control.wgsl): full workgroup counts, zero statistics. */
  private createControl(): GPUBuffer {
    const layout = kernels().programControl.structs.get('CorrectorControl')!;
    const [px, py] = dispatchSize(this.model.particleCount, this.workgroupSize, this.device.limits);
    const [sx, sy] = dispatchSize(Math.max(1, this.model.springCount), this.workgroupSize, this.device.limits);
    const values: Record<string, number> = Object.fromEntries([...layout.members.keys()].map((name) => [name, 0]));
    Object.assign(values, { groupsParticleX: px, groupsParticleY: py, groupsSpringX: this.model.springCount > 0 ? sx : 0, groupsSpringY: sy, partialCount: this.partialCount, converged: 1 });
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    return this.create('control', layout.size, usage, structBytes(layout, values));
  } // prettier-ignore

  /** The kernels' reference of a vector name under the given ring positions. */
  private reference(name: string, heads: ReadonlyMap<string, number>): number {
    if (name === 'x') return 0;
    if (name === 'v') return 1;
    const entry = parseRingEntry(name);
    if (!entry) return 2 + this.slots.get(name)!;
    const length = this.program.rings[entry.ring]!;
    return 2 + this.slots.get(entry.ring)! + ((heads.get(entry.ring)! + entry.back) % length);
  }

  private dispatch(
    kernel: KernelName,
    label: string,
    threads: number,
    op: GPUBuffer | null,
    constants: Readonly<Record<string, number>> = {},
  ): Dispatch {
    const target = pipeline(this.device, kernel, this.workgroupSize, constants);
    const bindGroup = bindByName(this.device, `WebGpuExecutor.${label}`, target, kernels()[kernel], {
      ...this.shared,
      ...(op ? { op } : {}),
    });
    return { label, pipeline: target, bindGroup, threads };
  }

  /** A uniform of `values(h)`; `dependsOnStep` ones are rewritten by {@link setStep}. */
  private uniform(
    kernel: KernelName,
    struct: string,
    values: (h: number) => Record<string, number | readonly number[]>,
    dependsOnStep = false,
  ): GPUBuffer {
    const layout = kernels()[kernel].structs.get(struct)!;
    const buffer = this.create(
      `${kernel}.op`,
      layout.size,
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      structBytes(layout, values(this.h)),
    );
    if (dependsOnStep) this.stepUniforms.push({ buffer, layout, values });
    return buffer;
  }

  /** The dispatches of `ops` from ring positions `heads` (advanced in place by `rotate`). */
  private compileOps(ops: readonly Op[], heads: Map<string, number>, out: Dispatch[]): void {
    for (const op of ops) {
      if (op.op === 'rotate') {
        const length = this.program.rings[op.ring]!;
        heads.set(op.ring, (heads.get(op.ring)! + length - 1) % length);
      } else if (op.op === 'eval') {
        const refs = {
          xRef: this.reference(op.x, heads),
          vRef: this.reference(op.v, heads),
          aRef: this.reference(op.a, heads),
        };
        const buffer = this.uniform('programGather', 'EvalOp', () => ({ rayleighMass: op.rayleighMass }));
        if (this.model.springCount > 0)
          out.push(this.dispatch('programForces', 'forces', this.model.springCount, null, refs));
        out.push(this.dispatch('programGather', 'gather', this.model.particleCount, buffer, refs));
      } else if (op.op === 'combine') {
        out.push(this.combine(op.outputs, heads));
      } else if (op.op === 'norm') {
        const ref = (name: string): number => this.reference(name, heads);
        const refs = {
          errorX: ref(op.error[0]),
          errorV: ref(op.error[1]),
          startX: ref(op.start[0]),
          startV: ref(op.start[1]),
          endX: ref(op.end[0]),
          endV: ref(op.end[1]),
        };
        const { relative, absolutePosition, absoluteVelocity, positionWeight, velocityWeight } =
          op.tolerances;
        const values = { relative, absolutePosition, absoluteVelocity, positionWeight, velocityWeight };
        out.push(
          this.dispatch(
            'programNorm',
            'norm',
            this.model.particleCount,
            this.uniform('programNorm', 'NormOp', () => values),
            refs,
          ),
        );
      } else this.compileCorrector(heads, out);
    }
  }

  /**
   * `correct`: maxIterations sweeps, each body → d = next − current → its scaled max-norm →
   * current = next → DECIDE (program-control.wgsl). With a tolerance the sweeps are dispatched
   * indirectly, so those after convergence launch nothing; without one (PECE) they are direct.
   */
  private compileCorrector(heads: Map<string, number>, out: Dispatch[]): void {
    const c = this.program.corrector!;
    const tol = c.tolerance;
    const tolerances = { relative: tol, absolutePosition: tol, absoluteVelocity: tol, positionWeight: 1, velocityWeight: 1, norm: 'max' as const };
    const control = (mode: number): Dispatch => this.dispatch('programControl', 'control', 1, this.uniform('programControl', 'ControlOp', () => ({ mode, check: c.check ? 1 : 0 })));
    const members = kernels().programControl.structs.get('CorrectorControl')!.members;
    const [particles, springs] = [members.get('particleX')!.offset, members.get('springX')!.offset];
    if (c.check) out.push(control(controlMode('BEGIN')));
    for (let k = 0; k < c.maxIterations; k++) {
      const sweep: Dispatch[] = [];
      const check: Op[] = c.check
        ? [
            { op: 'combine', outputs: [{ to: 'pc.dx', terms: [[1, 'pc.xNext'], [-1, 'pc.x']] }, { to: 'pc.dv', terms: [[1, 'pc.vNext'], [-1, 'pc.v']] }] },
            { op: 'norm', error: ['pc.dx', 'pc.dv'], start: ['x', 'v'], end: ['pc.xNext', 'pc.vNext'], tolerances },
          ]
        : [];
      const copy: Op = { op: 'combine', outputs: [{ to: 'pc.x', terms: [[1, 'pc.xNext']] }, { to: 'pc.v', terms: [[1, 'pc.vNext']] }] };
      this.compileOps([...c.body, ...check, copy], heads, sweep);
      if (!c.check) out.push(...sweep);
      else out.push(...sweep.map((d) => ({ ...d, indirect: d.label === 'forces' ? springs : particles })), control(controlMode('DECIDE')));
    }
    if (c.check) out.push(control(controlMode('END')));
  } // prettier-ignore

  /** The corrector's statistics (a readback: call outside the real-time path). */
  async readCorrector(): Promise<CorrectorStats> {
    const data = new DataView((await readBuffer(this.device, this.shared['control']!)).buffer);
    const m = kernels().programControl.structs.get('CorrectorControl')!.members;
    const u32 = (name: string): number => data.getUint32(m.get(name)!.offset, true);
    return {
      correctorIterations: u32('totalIterations'),
      maxCorrectorIterationsInStep: u32('maxIterationsInStep'),
      unconvergedSteps: u32('unconvergedSteps'),
      converged: u32('converged') === 1,
      lastCorrection: u32('lastFinite') ? data.getFloat32(m.get('lastCorrection')!.offset, true) : NaN,
    };
  }

  /** A `combine`: its vectors specialise the pipeline, its coefficients (functions of h) are the uniform. */
  private combine(outputs: Extract<Op, { op: 'combine' }>['outputs'], heads: ReadonlyMap<string, number>): Dispatch {
    const constants: Record<string, number> = { outputCount: outputs.length };
    const coefficients: Coefficient[][] = [[], []];
    outputs.forEach((out, k) => {
      if (out.terms.length > MAX_TERMS) throw new Error(`a combination has more than ${MAX_TERMS} terms`);
      constants[`to${k}`] = this.reference(out.to, heads);
      constants[`terms${k}`] = out.terms.length;
      out.terms.forEach(([c, name], j) => {
        constants[`ref${k}${j}`] = this.reference(name, heads);
        coefficients[k]!.push(c);
      });
    });
    const values = (h: number): Record<string, number | readonly number[]> => {
      const [a, b] = coefficients.map((cs) => [...cs.map((c) => coefficientAt(c, h)), ...Array<number>(MAX_TERMS - cs.length).fill(0)]) as [number[], number[]];
      return { coefficients0a: a.slice(0, 4), coefficients0b: a.slice(4), coefficients1a: b.slice(0, 4), coefficients1b: b.slice(4) };
    };
    return this.dispatch('programCombine', 'combine', this.model.particleCount, this.uniform('programCombine', 'CombineOp', values, coefficients.flat().some((c) => typeof c !== 'number')), constants);
  } // prettier-ignore

  /** Where a plain vector lives, for copies to and from other passes' buffers (n vec4 from `offset`). */
  location(name: string): { buffer: GPUBuffer; offset: number } {
    const ref = this.reference(name, this.heads);
    if (ref < 2) return { buffer: ref === 0 ? this.positions : this.velocities, offset: 0 };
    return { buffer: this.shared['arena']!, offset: (ref - 2) * this.model.particleCount * VEC4_BYTES };
  }

  /** Encodes one run of `block` from the current ring positions into `pass`. */
  encode(pass: GPUComputePassEncoder, block: Block): void {
    const key = `${block}|${[...this.heads.values()].join(',')}`;
    let found = this.compiled.get(key);
    if (!found) {
      const heads = new Map(this.heads);
      const dispatches: Dispatch[] = [];
      this.compileOps(blockOps(this.program, block), heads, dispatches);
      const evaluations = dispatches.filter((d) => d.label === 'gather').length;
      this.compiled.set(key, (found = { dispatches, heads, evaluations }));
    }
    for (const { pipeline: target, bindGroup, threads, indirect } of found.dispatches) {
      pass.setPipeline(target);
      pass.setBindGroup(0, bindGroup);
      if (indirect !== undefined) pass.dispatchWorkgroupsIndirect(this.shared['control']!, indirect);
      else pass.dispatchWorkgroups(...dispatchSize(threads, this.workgroupSize, this.device.limits));
    }
    for (const [ring, head] of found.heads) this.heads.set(ring, head);
    this.evaluations += found.evaluations;
  }

  /** Rewrites every coefficient for a new step h (for drivers that change it). */
  setStep(h: number): void {
    this.h = h;
    for (const { buffer, layout, values } of this.stepUniforms)
      this.device.queue.writeBuffer(buffer, 0, structBytes(layout, values(h)));
  }

  /**
   * Encodes the copy of the last `norm`'s partials for {@link readNorm}; after the submission,
   * readNorm() maps them and finishes the norm as the CPU's errorNorm does.
   */
  encodeNormReadback(encoder: GPUCommandEncoder): void {
    encoder.copyBufferToBuffer(
      this.shared['partials']!,
      0,
      this.partialReadback,
      0,
      this.partialReadback.size,
    );
  }

  async readNorm(norm: 'rms' | 'max'): Promise<number> {
    await this.partialReadback.mapAsync(GPUMapMode.READ);
    const partials = new Float32Array(this.partialReadback.getMappedRange().slice(0));
    this.partialReadback.unmap();
    return finishNorm(partials, this.freeParticles, norm);
  }

  /** The state (x, v) as xyz float64 (a staging buffer of its own: not for the real-time path). */
  readState(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return readPair(this.device, this.model.particleCount, this.positions, this.velocities);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
}
