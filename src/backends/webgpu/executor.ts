/**
 * The WebGPU executor: compiles a program (src/integrators/program.ts) once into dispatches of
 * three kernels — program-forces + program-gather for `eval`, program-combine for `combine` —
 * each with its own small uniform, and encodes them into the caller's compute pass. `rotate` costs
 * nothing on the GPU: a ring entry is resolved to its slot at compile time, one compiled variant
 * per ring position. No readback: the CPU never waits on the GPU inside a step.
 */
import { WeftInputError } from '../../core/errors.ts';
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
} from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes, type StructLayout } from './layout.ts';

interface Dispatch {
  readonly label: string;
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
    };
    this.partialReadback = this.create(
      'partialReadback',
      this.partialCount * VEC4_BYTES,
      GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    );
  }

  /** The kernels' reference of a vector name under the given ring positions. */
  private reference(name: string, heads: ReadonlyMap<string, number>): number {
    if (name === 'x') return 0;
    if (name === 'v') return 1;
    const entry = parseRingEntry(name);
    if (!entry) return 2 + this.slots.get(name)!;
    const length = this.program.rings[entry.ring]!;
    return 2 + this.slots.get(entry.ring)! + ((heads.get(entry.ring)! + entry.back) % length);
  }

  private dispatch(kernel: KernelName, label: string, threads: number, op: GPUBuffer): Dispatch {
    const target = pipeline(this.device, kernel, this.workgroupSize);
    const bindGroup = bindByName(this.device, `WebGpuExecutor.${label}`, target, kernels()[kernel], {
      ...this.shared,
      op,
    });
    return { label, pipeline: target, bindGroup, threads };
  }

  private uniform(
    kernel: KernelName,
    struct: string,
    values: (h: number) => Record<string, number | readonly number[]>,
  ): GPUBuffer {
    const layout = kernels()[kernel].structs.get(struct)!;
    const buffer = this.create(
      `${kernel}.op`,
      layout.size,
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      structBytes(layout, values(this.h)),
    );
    this.stepUniforms.push({ buffer, layout, values });
    return buffer;
  }

  /** The dispatches of `ops` from ring positions `heads` (advanced in place by `rotate`). */
  private compileOps(ops: readonly Op[], heads: Map<string, number>, out: Dispatch[]): void {
    for (const op of ops) {
      if (op.op === 'rotate') {
        const length = this.program.rings[op.ring]!;
        heads.set(op.ring, (heads.get(op.ring)! + length - 1) % length);
      } else if (op.op === 'eval') {
        const values = {
          x: this.reference(op.x, heads),
          v: this.reference(op.v, heads),
          a: this.reference(op.a, heads),
          rayleighMass: op.rayleighMass,
        };
        const buffer = this.uniform('programForces', 'EvalOp', () => values);
        if (this.model.springCount > 0)
          out.push(this.dispatch('programForces', 'forces', this.model.springCount, buffer));
        out.push(this.dispatch('programGather', 'gather', this.model.particleCount, buffer));
      } else if (op.op === 'combine') {
        out.push(this.combine(op.outputs, heads));
      } else if (op.op === 'norm') {
        const ref = (name: string): number => this.reference(name, heads);
        const t = op.tolerances;
        const values = {
          errorX: ref(op.error[0]),
          errorV: ref(op.error[1]),
          startX: ref(op.start[0]),
          startV: ref(op.start[1]),
          endX: ref(op.end[0]),
          endV: ref(op.end[1]),
          relative: t.relative,
          absolutePosition: t.absolutePosition,
          absoluteVelocity: t.absoluteVelocity,
          positionWeight: t.positionWeight,
          velocityWeight: t.velocityWeight,
        };
        out.push(
          this.dispatch(
            'programNorm',
            'norm',
            this.model.particleCount,
            this.uniform('programNorm', 'NormOp', () => values),
          ),
        );
      } else {
        const c = this.program.corrector!;
        if (c.check)
          throw new WeftInputError(
            'maxCorrectorIterations',
            'a corrector iterated to a tolerance runs on the CPU only; the GPU runs a fixed number of sweeps (PECE)',
          );
        for (let k = 0; k < c.maxIterations; k++) {
          this.compileOps(c.body, heads, out);
          out.push(
            this.combine(
              [
                { to: 'pc.x', terms: [[1, 'pc.xNext']] },
                { to: 'pc.v', terms: [[1, 'pc.vNext']] },
              ],
              heads,
            ),
          );
        }
      }
    }
  }

  private combine(
    outputs: Extract<Op, { op: 'combine' }>['outputs'],
    heads: ReadonlyMap<string, number>,
  ): Dispatch {
    const side = (k: number): { to: number; refs: number[]; coefficients: Coefficient[] } => {
      const out = outputs[k];
      if (!out) return { to: 0, refs: [], coefficients: [] };
      if (out.terms.length > MAX_TERMS) throw new Error(`a combination has more than ${MAX_TERMS} terms`);
      return {
        to: this.reference(out.to, heads),
        refs: out.terms.map(([, name]) => this.reference(name, heads)),
        coefficients: out.terms.map(([c]) => c),
      };
    };
    const [a, b] = [side(0), side(1)];
    const pad = <T>(values: T[], fill: T): T[] => [
      ...values,
      ...Array<T>(MAX_TERMS - values.length).fill(fill),
    ];
    const values = (h: number): Record<string, number | readonly number[]> => {
      const [ca, cb] = [
        pad(
          a.coefficients.map((c) => coefficientAt(c, h)),
          0,
        ),
        pad(
          b.coefficients.map((c) => coefficientAt(c, h)),
          0,
        ),
      ];
      const [ra, rb] = [pad(a.refs, 0), pad(b.refs, 0)];
      return {
        outputCount: outputs.length,
        to0: a.to,
        to1: b.to,
        terms0: a.refs.length,
        terms1: b.refs.length,
        refs0a: ra.slice(0, 4),
        refs0b: ra.slice(4),
        refs1a: rb.slice(0, 4),
        refs1b: rb.slice(4),
        coefficients0a: ca.slice(0, 4),
        coefficients0b: ca.slice(4),
        coefficients1a: cb.slice(0, 4),
        coefficients1b: cb.slice(4),
      };
    };
    return this.dispatch(
      'programCombine',
      'combine',
      this.model.particleCount,
      this.uniform('programCombine', 'CombineOp', values),
    );
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
    for (const { pipeline: target, bindGroup, threads } of found.dispatches) {
      pass.setPipeline(target);
      pass.setBindGroup(0, bindGroup);
      const [x, y] = dispatchSize(threads, this.workgroupSize, this.device.limits);
      pass.dispatchWorkgroups(x, y);
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
    return finishNorm(partials, this.model, norm);
  }

  /** The state (x, v) as xyz float64 (a staging buffer of its own: not for the real-time path). */
  readState(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return readPair(this.device, this.model.particleCount, this.positions, this.velocities);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
}
