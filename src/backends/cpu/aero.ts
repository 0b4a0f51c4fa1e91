/**
 * Wind on the CPU (the `aero` and `windClock` ops; src/integrators/wind-programs.ts), pass for
 * pass the WebGPU's shaders/aero-triangles.wgsl and aero-gather.wgsl: the force of each triangle
 * (src/model/wind.ts), then each particle gathers a third of its triangles' forces over a CSR list
 * in list order — no scatter, the same sum every run.
 */
import { buildIncidence, type Incidence } from '../../model/incidence.ts';
import type { Model } from '../../model/model.ts';
import { triangleAeroForce } from '../../model/wind.ts';
import type { RealArray } from './passes.ts';

/** The wind's forces of a model on the CPU: the `aero` and `windClock` ops. */
export class CpuAero {
  /** Steps taken (`windClock`): a step's start t_n is origin + steps × h. */
  private steps = 0;
  /** The time of step 0 (s): 0 on fixed-step programs; the accepted time on adaptive ones. */
  origin = 0;
  /** The triangles of each particle: entries 3 t + corner (src/model/incidence.ts). */
  private readonly incidence: Incidence;
  /** The force of each triangle, [3t], N. */
  private readonly force: Float64Array;

  constructor(private readonly model: Model) {
    this.incidence = buildIncidence(model.particleCount, model.triangleIndices);
    this.force = new Float64Array(model.triangleIndices.length);
  }

  /** The `windClock` op. */
  tick(): void {
    this.steps++;
  }

  /** The `aero` op: to_i += scale f_i (÷ m_i with perMass) on free particles, f at (x, v) and t_n + stage h. */
  apply(x: RealArray, v: RealArray, to: RealArray, scale: number, perMass: boolean, h: number, stage: number): void {
    const { model, force } = this;
    const wind = model.wind!;
    const corners = model.triangleIndices;
    const t = this.origin + (this.steps + stage) * h;
    for (let k = 0; k < corners.length; k += 3)
      triangleAeroForce(wind, x, v, corners[k]!, corners[k + 1]!, corners[k + 2]!, t, force, k);
    const { offsets, entries } = this.incidence;
    for (let i = 0; i < model.particleCount; i++) {
      const invMass = model.particleInvMass[i]!;
      if (invMass === 0) continue;
      let [fx, fy, fz] = [0, 0, 0];
      for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
        const k = entries[e]! - (entries[e]! % 3);
        [fx, fy, fz] = [fx + force[k]!, fy + force[k + 1]!, fz + force[k + 2]!];
      }
      const s = (scale * (perMass ? invMass : 1)) / 3;
      to[3 * i] = to[3 * i]! + s * fx;
      to[3 * i + 1] = to[3 * i + 1]! + s * fy;
      to[3 * i + 2] = to[3 * i + 2]! + s * fz;
    }
  } // prettier-ignore
}
