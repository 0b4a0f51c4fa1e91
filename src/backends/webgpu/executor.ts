/**
 * The WebGPU executor: compiles a program (src/integrators/program.ts) once into dispatches —
 * program-forces + program-gather for `eval`, program-combine for `combine`, program-norm for
 * `norm`, the corrector's sweeps (corrector.ts) and the implicit ops (implicit-ops.ts) — each
 * with its own small uniform, and encodes them into the caller's compute pass. Every vector lives
 * in one arena and reaches a kernel as a reference specialising its pipeline. `rotate` costs
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
  arenaStride,
  vec4Bytes,
  finishNorm,
  readPair,
  writeScalarRuns,
  writeVec4Runs,
  readVec4Range,
} from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes, type StructLayout } from './layout.ts';
import { encodeDispatches, type Compiled, type Dispatch, type ExecutorServices } from './dispatch.ts';
import { CheckpointRunner } from './checkpoints.ts';
import { GpuImplicitOps } from './implicit-ops.ts';
import { GpuContacts } from './contact-ops.ts';
import { GpuAero } from './aero-ops.ts';
import { GpuBending } from './bending-ops.ts';
import { GpuSelfContact } from './self-contact-ops.ts';
import { GpuCorrectorOps } from './corrector-ops.ts';
import { GpuMultigrid } from './multigrid-ops.ts';
import type { GpuProfiler, Profiled } from './profiler.ts';

/** A uniform whose values depend on h (combination coefficients), rewritten by setStep(). */
interface StepUniform {
  readonly buffer: GPUBuffer;
  readonly layout: StructLayout;
  readonly values: (h: number) => Record<string, number | readonly number[]>;
}

export class WebGpuExecutor implements ExecutorServices {
  /** vec4<f32> per particle (w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  readonly positions: GPUBuffer;
  readonly velocities: GPUBuffer;
  /** Evaluations of a(x, v) encoded so far. */
  evaluations = 0;
  /** Dispatches encoded so far (with checkpoints: only those before the skips). */
  dispatchesEncoded = 0;
  /** The corrector (predictor–correctors only). */
  readonly corrector: GpuCorrectorOps | null;
  /** Contacts with the model's colliders (null without colliders). */
  readonly contacts: GpuContacts | null;
  /** Wind on the model's triangles (null without wind). */
  readonly aero: GpuAero | null;
  /** Dihedral bending on the model's hinges (null without bending). */
  readonly bending: GpuBending | null;
  /** Self-collision's pairs (null without selfCollision). */
  readonly selfContact: GpuSelfContact | null;
  /** The implicit ops (programs with a linear system only). */
  readonly implicit: GpuImplicitOps | null;
  readonly create: ReturnType<typeof bufferFactory>;
  private readonly buffers: GPUBuffer[] = [];
  private readonly shared: Record<string, GPUBuffer>;
  /** Arena slot of each plain work vector, and the first slot of each ring. */
  private readonly slots = new Map<string, number>();
  private readonly heads = new Map<string, number>();
  /** vec4s per arena slot: n rounded up to 16, so every slot starts 256-byte aligned. */
  private readonly arenaStride: number;
  private readonly compiled = new Map<string, { list: Compiled[]; heads: Map<string, number>; evaluations: number }>(); // prettier-ignore
  private readonly stepUniforms: StepUniform[] = [];
  private h: number;
  /** Particles the error norm counts (the free ones). */
  /** Free particles (inverse mass > 0): the rms error norm's count, kept by writeMasses. */
  private freeParticles: number;
  /** Workgroups of a per-particle dispatch: one partial of a reduction each. */
  readonly partialCount: number;
  private readonly partialReadback: GPUBuffer;
  private readonly checkpoints: CheckpointRunner;
  /** Buffers of the multigrid made by the last {@link rebuildMultigrid} (none before one). */
  private multigridBuffers: GPUBuffer[] = [];

  /** `checkEvery` > 0: implicit solves get a checkpoint every that many iterations (for {@link runChecked}). */
  constructor(
    readonly device: GPUDevice,
    readonly model: Model,
    private readonly program: Program,
    h: number,
    readonly workgroupSize: number,
    checkEvery = 0,
  ) {
    this.h = h;
    const n = model.particleCount;
    const [gx, gy] = dispatchSize(n, workgroupSize, device.limits);
    this.partialCount = gx * gy;
    this.freeParticles = model.particleInvMass.filter((w) => w > 0).length;
    this.arenaStride = arenaStride(n);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    this.create = bufferFactory(device, 'WebGpuExecutor', this.buffers);
    const slotCount = this.allocateSlots();
    const arenaBytes = Math.max(1, slotCount) * this.arenaStride * VEC4_BYTES;
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (arenaBytes > limit)
      throw new WeftInputError(
        'model',
        `too large for this device: the scheme's ${slotCount} work vectors need ${arenaBytes} bytes, the device allows ${limit} per storage buffer`,
      );
    this.positions = this.create('positions', n * VEC4_BYTES, storage | GPUBufferUsage.VERTEX, vec4Bytes(model.particlePositions, 1)); // prettier-ignore
    this.velocities = this.create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0)); // prettier-ignore
    const { offsets, entries } = model.incidence;
    const springData = springBytes(model);
    const params = structBytes(kernels().programForces.structs.get('SimParams')!, { particleCount: n, springCount: model.springCount, gravity: model.gravity, rayleighMass: 0 }); // prettier-ignore
    this.shared = {
      params: this.create('params', 32, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, params),
      positions: this.positions,
      velocities: this.velocities,
      arena: this.create('arena', arenaBytes, storage),
      springs: this.create('springs', springData.byteLength, storage, springData),
      springForces: this.create('springForces', model.springCount * VEC4_BYTES, storage),
      incidentOffsets: this.create('incidentOffsets', offsets.byteLength, storage, offsets.slice().buffer),
      incidentSprings: this.create('incidentSprings', entries.byteLength, storage, entries.slice().buffer),
      particleInvMass: this.create('particleInvMass', n * 4, storage, Float32Array.from(model.particleInvMass).buffer), // prettier-ignore
      partials: this.create('partials', this.partialCount * VEC4_BYTES, storage),
    };
    const staging = GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
    this.partialReadback = this.create('partialReadback', this.partialCount * VEC4_BYTES, staging);
    this.checkpoints = new CheckpointRunner(device, [this.create('checkReadback', 16, staging), this.create('checkReadback.ahead', 16, staging)]); // prettier-ignore
    this.corrector = program.corrector ? new GpuCorrectorOps(this, program.corrector) : null;
    this.contacts = model.colliders.length > 0 ? new GpuContacts(this) : null;
    this.aero = model.wind ? new GpuAero(this) : null;
    this.bending = model.bending ? new GpuBending(this) : null;
    this.selfContact = model.selfCollision ? new GpuSelfContact(this, { positions: this.positions, velocities: this.velocities, arena: this.shared['arena']!, arenaStride: this.arenaStride }, h) : null; // prettier-ignore
    this.implicit = program.implicit ? new GpuImplicitOps(this, program, checkEvery) : null;
  }

  /** Assigns arena slots to the plain vectors, then to the rings; returns the slot count. */
  private allocateSlots(): number {
    let slot = 0;
    for (const name of vectorNames(this.program))
      if (name !== 'x' && name !== 'v' && !parseRingEntry(name)) this.slots.set(name, slot++);
    for (const [ring, length] of Object.entries(this.program.rings)) {
      this.slots.set(ring, slot);
      this.heads.set(ring, 0);
      slot += length;
    }
    return slot;
  }

  /** The kernels' reference of a vector name under the given ring positions. */
  reference(name: string, heads: ReadonlyMap<string, number> = this.heads): number {
    if (name === 'x') return 0;
    if (name === 'v') return 1;
    const entry = parseRingEntry(name);
    if (!entry) {
      const slot = this.slots.get(name);
      if (slot === undefined) throw new Error(`program vector '${name}' was not allocated`);
      return 2 + slot;
    }
    const length = this.program.rings[entry.ring]!;
    return 2 + this.slots.get(entry.ring)! + ((heads.get(entry.ring)! + entry.back) % length);
  }

  /**
   * A dispatch of `kernel` over `domain`, bound to the shared buffers and `extra`, its pipeline
   * specialised by `constants` (the vector references; each kernel keeps those it uses).
   */
  dispatch(
    kernel: KernelName,
    label: string,
    domain: Dispatch['domain'],
    extra: Readonly<Record<string, GPUBuffer>> = {},
    constants: Readonly<Record<string, number>> = {},
    threads?: number,
  ): Dispatch {
    const target = pipeline(this.device, kernel, this.workgroupSize, { arenaStride: this.arenaStride, ...constants }); // prettier-ignore
    const bindGroup = bindByName(this.device, `WebGpuExecutor.${label}`, target, kernels()[kernel], {
      ...this.shared,
      ...extra,
    });
    const count = threads ?? { particles: this.model.particleCount, springs: this.model.springCount, single: 1 }[domain]; // prettier-ignore
    return { kind: 'dispatch', label, domain, pipeline: target, bindGroup, threads: count };
  }

  /** A uniform of `values(h)`; `dependsOnStep` ones are rewritten by {@link setStep}. */
  uniform(
    kernel: KernelName,
    struct: string,
    values: (h: number) => Record<string, number | readonly number[]>,
    dependsOnStep = false,
  ): GPUBuffer {
    const layout = kernels()[kernel].structs.get(struct)!;
    const buffer = this.create(`${kernel}.${struct}`, layout.size, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, structBytes(layout, values(this.h))); // prettier-ignore
    if (dependsOnStep) this.stepUniforms.push({ buffer, layout, values });
    return buffer;
  }

  /** The dispatches of `ops` from ring positions `heads` (advanced in place by `rotate`). */
  compile(ops: readonly Op[], heads: Map<string, number>, out: Compiled[]): void {
    for (const op of ops) {
      if (op.op === 'rotate') {
        const length = this.program.rings[op.ring]!;
        heads.set(op.ring, (heads.get(op.ring)! + length - 1) % length);
      } else if (op.op === 'eval') {
        const refs = { xRef: this.reference(op.x, heads), vRef: this.reference(op.v, heads), aRef: this.reference(op.a, heads) }; // prettier-ignore
        const buffer = this.uniform('programGather', 'EvalOp', () => ({ rayleighMass: op.rayleighMass }));
        if (this.model.springCount > 0)
          out.push(this.dispatch('programForces', 'forces', 'springs', {}, refs));
        out.push(this.dispatch('programGather', 'gather', 'particles', { op: buffer }, refs), ...(this.bending?.evaluate(refs) ?? []), ...(this.selfContact?.evaluate(refs) ?? [])); // prettier-ignore
      } else if (op.op === 'combine') out.push(this.combine(op.outputs, heads));
      else if (op.op === 'selfContacts') out.push(...this.selfContact!.contacts(op, heads));
      else if (op.op === 'selfFailSafe') out.push(...this.selfContact!.failSafe(op, heads));
      else if (op.op === 'norm') out.push(this.norm(op, heads));
      else if (op.op === 'correct') this.corrector!.compile(heads, out);
      else if (op.op === 'project' || op.op === 'moveColliders')
        out.push(this.contacts!.compileOp(op, heads));
      else if (op.op === 'aero' || op.op === 'windClock') out.push(...this.aero!.compileOp(op, heads));
      else if (op.op === 'strainCorrection')
        out.push(this.dispatch('strainCorrection', 'strain', 'particles', { op: this.uniform('strainCorrection', 'StrainOp', () => ({ maxStretch: op.maxStretch })) }, { xRef: this.reference(op.x, heads), toRef: this.reference(op.to, heads) })); // prettier-ignore
      else if (this.implicit) this.implicit.compile(op, heads, out);
      else throw new Error(`'${op.op}' needs a program with a linear system`);
    }
  }

  private norm(op: Extract<Op, { op: 'norm' }>, heads: ReadonlyMap<string, number>): Dispatch {
    const ref = (name: string): number => this.reference(name, heads);
    const refs = { errorX: ref(op.error[0]), errorV: ref(op.error[1]), startX: ref(op.start[0]), startV: ref(op.start[1]), endX: ref(op.end[0]), endV: ref(op.end[1]) }; // prettier-ignore
    const { relative, absolutePosition, absoluteVelocity, positionWeight, velocityWeight } = op.tolerances;
    const values = { relative, absolutePosition, absoluteVelocity, positionWeight, velocityWeight };
    return this.dispatch('programNorm', 'norm', 'particles', { op: this.uniform('programNorm', 'NormOp', () => values) }, refs); // prettier-ignore
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
    const uniform = this.uniform('programCombine', 'CombineOp', values, coefficients.flat().some((c) => typeof c !== 'number'));
    return this.dispatch('programCombine', 'combine', 'particles', { op: uniform }, constants);
  } // prettier-ignore

  /** Where a plain vector lives: n vec4 from `offset` (256-byte aligned), for copies and bindings. */
  location(name: string): { buffer: GPUBuffer; offset: number; size: number } {
    const ref = this.reference(name, this.heads);
    const size = this.model.particleCount * VEC4_BYTES;
    if (ref < 2) return { buffer: ref === 0 ? this.positions : this.velocities, offset: 0, size };
    return { buffer: this.shared['arena']!, offset: (ref - 2) * this.arenaStride * VEC4_BYTES, size };
  }

  /** The compiled list of `block` from the current ring positions (compiled once per positions). */
  private compiledBlock(block: Block): { list: Compiled[]; heads: Map<string, number>; evaluations: number } {
    const key = `${block}|${[...this.heads.values()].join(',')}`;
    let found = this.compiled.get(key);
    if (!found) {
      const heads = new Map(this.heads);
      const list: Compiled[] = [];
      this.compile(blockOps(this.program, block), heads, list);
      const evaluations = list.filter((d) => d.kind === 'dispatch' && d.label === 'gather').length;
      this.compiled.set(key, (found = { list, heads, evaluations }));
    }
    return found;
  }

  private advanceRings(found: { heads: Map<string, number>; evaluations: number }): void {
    for (const [ring, head] of found.heads) this.heads.set(ring, head);
    this.evaluations += found.evaluations;
  }

  /** Encodes one run of `block` into `pass` (profiled: a pass per dispatch), from the ring positions. */
  encode(pass: GPUComputePassEncoder | Profiled, block: Block): void {
    const found = this.compiledBlock(block);
    this.dispatchesEncoded += 'profiler' in pass ? pass.profiler.encode(pass.encoder, found.list, this.workgroupSize) : encodeDispatches(pass, found.list, this.workgroupSize, this.device.limits); // prettier-ignore
    this.advanceRings(found);
  }

  /** Runs one `block`, reading back at its checkpoints and skipping what is not needed (bit-identical). */
  async runChecked(block: Block, profiler?: GpuProfiler): Promise<void> {
    const found = this.compiledBlock(block);
    this.dispatchesEncoded += await this.checkpoints.run(found.list, this.workgroupSize, profiler);
    this.advanceRings(found);
  }

  /** Dispatches one run of `block` encodes (for the curious and for benchmarks). */
  dispatchCount(block: Block): number {
    return this.compiledBlock(block).list.filter((d) => d.kind === 'dispatch').length;
  }

  /** Rewrites every coefficient for a new step h (for drivers that change it). */
  setStep(h: number): void {
    this.h = h;
    this.selfContact?.setStep(h);
    for (const { buffer, layout, values } of this.stepUniforms)
      this.device.queue.writeBuffer(buffer, 0, structBytes(layout, values(h)));
  }

  /**
   * Encodes the copy of the last `norm`'s partials for {@link readNorm}; after the submission,
   * readNorm() maps them and finishes the norm as the CPU's errorNorm does.
   */
  encodeNormReadback(encoder: GPUCommandEncoder): void {
    encoder.copyBufferToBuffer(this.shared['partials']!, 0, this.partialReadback, 0, this.partialReadback.size); // prettier-ignore
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

  /** A named vector as xyz float64 (a staging buffer of its own: not for the real-time path). */
  readVector(name: string): Promise<Float64Array> {
    const { buffer, offset } = this.location(name);
    return readVec4Range(this.device, buffer, offset, this.model.particleCount);
  }

  /**
   * Writes xyz values of particles `indices` into the vector `name` (x: w = 1), one writeBuffer
   * per run of consecutive indices: queued after the work submitted so far, no readback.
   */
  writeParticles(name: string, indices: Uint32Array, xyz: Float64Array): void {
    const { buffer, offset } = this.location(name);
    writeVec4Runs(this.device, buffer, offset, indices, xyz, name === 'x' ? 1 : 0);
  }

  /** Uploads the model's inverse masses (and the implicit ops' masses, 0 where fixed) of `indices`. */
  writeMasses(indices: Uint32Array): void {
    const { particleInvMass, particleMass, particleFixed } = this.model;
    this.freeParticles = particleInvMass.filter((w) => w > 0).length;
    writeScalarRuns(this.device, this.shared['particleInvMass']!, indices, (i) => particleInvMass[i]!);
    if (this.implicit) writeScalarRuns(this.device, this.implicit.particleMass, indices, (i) => (particleFixed[i] ? 0 : particleMass[i]!)); // prettier-ignore
  }

  /**
   * Multigrid solves: a new hierarchy from the model's fixed flags now (the old one's buffers are
   * freed once the queue is done with them), and every block recompiled on first use.
   */
  rebuildMultigrid(): void {
    const implicit = this.implicit;
    if (!implicit) return;
    const before = this.buffers.length;
    implicit.rebuildMultigrid(() => new GpuMultigrid(this));
    const made = this.buffers.splice(before);
    const old = this.multigridBuffers;
    this.multigridBuffers = made;
    this.buffers.push(...made);
    if (made.length === 0) return;
    this.compiled.clear();
    for (const buffer of old) this.buffers.splice(this.buffers.indexOf(buffer), 1);
    void this.device.queue.onSubmittedWorkDone().then(() => old.forEach((buffer) => buffer.destroy()));
  }

  /** Uploads a named vector (xyz float64, converted to f32). */
  writeVector(name: string, xyz: Float64Array): void {
    const { buffer, offset } = this.location(name);
    this.device.queue.writeBuffer(buffer, offset, vec4Bytes(xyz, name === 'x' ? 1 : 0));
  }

  destroy(): void {
    this.selfContact?.destroy();
    for (const buffer of this.buffers) buffer.destroy();
  }
}
