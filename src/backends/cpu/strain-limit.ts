/**
 * CPU reference of shaders/strain-correction.wgsl (the `strainCorrection` op): for each free
 * particle i, over its incident springs s = (i, j) with l = |x_j − x_i| > l_max = (1 + τ) L_s,
 *   Δ_i = (1 / c_i) Σ_s w_i / (w_i + w_j) (l − l_max) (x_j − x_i) / l,
 * w the inverse masses and c_i the count of such springs (the mean, so that corrections from
 * several springs do not add up past any one of them: Jacobi with averaging); Δ_i = 0 otherwise.
 * One Jacobi sweep of Provot's (1995) correction, which moves both ends of an over-stretched
 * spring back to l_max in proportion to their inverse masses.
 */
import type { Model } from '../../model/model.ts';
import type { RealArray } from './passes.ts';

export function strainCorrection(model: Model, x: RealArray, maxStretch: number, out: RealArray): void {
  const { offsets, entries } = model.incidence;
  const { springIndices, springRestLength, particleInvMass: w } = model;
  for (let i = 0; i < model.particleCount; i++) {
    let [dx, dy, dz, count] = [0, 0, 0, 0];
    for (let e = offsets[i]!; w[i]! > 0 && e < offsets[i + 1]!; e++) {
      const s = entries[e]! >> 1;
      const j = springIndices[2 * s + 1 - (entries[e]! & 1)]!;
      const [ex, ey, ez] = [
        x[3 * j]! - x[3 * i]!,
        x[3 * j + 1]! - x[3 * i + 1]!,
        x[3 * j + 2]! - x[3 * i + 2]!,
      ];
      const l = Math.sqrt(ex * ex + ey * ey + ez * ez);
      const excess = l - (1 + maxStretch) * springRestLength[s]!;
      if (!(excess > 0)) continue;
      const share = (w[i]! / (w[i]! + w[j]!)) * (excess / l);
      dx += share * ex;
      dy += share * ey;
      dz += share * ez;
      count++;
    }
    const mean = count > 0 ? 1 / count : 0;
    out[3 * i] = mean * dx;
    out[3 * i + 1] = mean * dy;
    out[3 * i + 2] = mean * dz;
  }
}
