/**
 * Wind on WebGPU (CPU mirror: src/backends/cpu/aero.ts): `aero` is aero-triangles.wgsl (one
 * thread per triangle: its drag and lift, src/model/wind.ts) then aero-gather.wgsl (one thread per
 * particle over its CSR list of triangles: no float atomics, a fixed order); `windClock` is
 * wind-clock.wgsl. The triangle pass is dispatched as a 'single'-domain pass of t threads: Newton
 * loops gate only the per-particle and per-spring passes, and the gather after it is gated.
 */
import type { Op } from '../../integrators/program.ts';
import { coefficientAt } from '../../integrators/program.ts';
import { buildIncidence } from '../../model/incidence.ts';
import { TURBULENCE_DIRECTIONS, TURBULENCE_PHASES, TURBULENCE_RATES } from '../../model/wind.ts';
import type { Dispatch, ExecutorServices } from './dispatch.ts';
import { VEC4_BYTES } from './gpu-common.ts';
import { kernels } from './kernels.ts';
import { structBytes } from './layout.ts';

/** φ_i − r_i ω t₀ reduced to [0, 2π) in float64: the waves' phases with the clock's origin t₀ folded in. */
function phasesAt(origin: number, omega: number): number[] {
  const turn = 2 * Math.PI;
  return TURBULENCE_PHASES.map((phase, i) => {
    const folded = (phase - TURBULENCE_RATES[i]! * omega * origin) % turn;
    return folded < 0 ? folded + turn : folded;
  });
}

/** The wind's buffers and dispatches on WebGPU: the `aero` and `windClock` ops. */
export class GpuAero {
  /**
   * t₀ (s), the time of clock step 0: on fixed-step programs the time the last call started at
   * (`fold`); adaptive steppers set each attempt's t_n (then setStep).
   */
  origin = 0;
  /** Each aero op's WindParams uniform and stage, rewritten by `fold`. */
  private readonly windUniforms: { buffer: GPUBuffer; stage: number }[] = [];
  private readonly triangleCount: number;
  private readonly buffers: Readonly<Record<string, GPUBuffer>>;
  /** WindParams of an op at stage c, for h (the origin read when written). */
  private readonly params: (h: number, stage: number) => Record<string, number | readonly number[]>;

  constructor(private readonly x: ExecutorServices) {
    const model = x.model;
    const wind = model.wind!;
    this.triangleCount = model.triangleIndices.length / 3;
    const { offsets, entries } = buildIncidence(model.particleCount, model.triangleIndices);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const direction = (d: number): readonly number[] => TURBULENCE_DIRECTIONS[d]!;
    this.params = (h: number, stage: number) => ({
      velocity: wind.velocity, halfDrag: 0.5 * wind.density * wind.drag, halfLift: 0.5 * wind.density * wind.lift,
      direction0: direction(0), direction1: direction(1), direction2: direction(2), turbulence: wind.turbulence,
      wavenumber: (2 * Math.PI) / wind.turbulenceWavelength, frequency: (2 * Math.PI) / wind.turbulencePeriod,
      rates: TURBULENCE_RATES, phases: phasesAt(this.origin, (2 * Math.PI) / wind.turbulencePeriod), h, stage,
    }); // prettier-ignore
    this.buffers = {
      triangles: x.create('triangles', model.triangleIndices.byteLength, storage, model.triangleIndices.slice().buffer), // prettier-ignore
      triangleForces: x.create('triangleForces', Math.max(1, this.triangleCount) * VEC4_BYTES, storage),
      triangleOffsets: x.create('triangleOffsets', offsets.byteLength, storage, offsets.slice().buffer),
      triangleEntries: x.create('triangleEntries', Math.max(4, entries.byteLength), storage, entries.slice().buffer), // prettier-ignore
      windClock: x.create('windClock', 16, storage),
    };
  }

  /** `aero` (the triangles' forces at (x, v), then their gather into `to`) or `windClock`. */
  compileOp(op: Extract<Op, { op: 'aero' | 'windClock' }>, heads: ReadonlyMap<string, number>): Dispatch[] {
    const b = this.buffers;
    if (op.op === 'windClock') return [this.x.dispatch('windClock', 'windClock', 'single', { windClock: b['windClock']! })]; // prettier-ignore
    const refs = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads) };
    // A uniform per op: its stage; rewritten with h (setStep), when the origin may have moved too.
    const wind = this.x.uniform('aeroTriangles', 'WindParams', (h) => this.params(h, op.stage), true);
    this.windUniforms.push({ buffer: wind, stage: op.stage });
    const forces = this.x.dispatch('aeroTriangles', 'aeroTriangles', 'single', { ...b, wind }, { ...refs, triangleCount: this.triangleCount }, this.triangleCount); // prettier-ignore
    const uniform = this.x.uniform('aeroGather', 'AeroOp', (h) => ({ scale: coefficientAt(op.scale, h) }), typeof op.scale !== 'number'); // prettier-ignore
    const constants = { toRef: this.x.reference(op.to, heads), perMass: op.perMass ? 1 : 0 };
    return [
      forces,
      this.x.dispatch('aeroGather', 'aeroGather', 'particles', { ...b, op: uniform }, constants),
    ];
  }

  /**
   * A fixed-step step() or advance() call's start (WebGpuSimulation): the clock's `ticks` steps of h
   * so far become the origin, folded into the waves' phases in float64, and the clock restarts at
   * 0, so the kernel's float32 time is only the steps since (before, steps × h since creation: 6e-8
   * of t). Its queue writes precede the call's submissions, and follow every earlier one.
   */
  fold(ticks: number, h: number): void {
    this.origin = ticks * h;
    const queue = this.x.device.queue;
    queue.writeBuffer(this.buffers['windClock']!, 0, new Uint32Array(4));
    const layout = kernels().aeroTriangles.structs.get('WindParams')!;
    for (const { buffer, stage } of this.windUniforms) queue.writeBuffer(buffer, 0, structBytes(layout, this.params(h, stage))); // prettier-ignore
  }
}
