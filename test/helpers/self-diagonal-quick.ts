/**
 * The kernel quick case 'self-collision: the diagonal blocks = the CPU's' (wgsl-quick-cases.ts,
 * KERNEL_CHECKS.selfDiagonal): self-pair-diagonal.wgsl's blocks Σ_{pairs of i} (γ κ + β β_e) g_i g_iᵀ,
 * read from the GPU after one Newmark pcg step of the damped fold (the blocks of that step's solve,
 * at the pair states of its start), against blocks assembled here in float64 from the CPU's pair
 * states at the same point (CpuSelfContact.detect, then .states with the implicit activation, on the
 * float32-rounded start) — scattered term by term over each term's four corners, not gathered over
 * the incidence list as the kernel (and RankOneTerms.addDiagonal) do, with γ, β written from the
 * Newmark formulas (implicit-coefficients.ts). Twice: the fold as it is (the kernel's own buffer,
 * accumulate = 0), and with dihedral bending (accumulate = 1: the kernel adds to
 * bending-diagonal.wgsl's blocks, so the expected blocks add CpuBending's hinges the same way).
 */
import { withBending, type Model } from '../../src/index.ts';
import { CpuBending, CpuSelfContact, readBuffer, WebGpuImplicitSimulation } from '../../src/internal.ts';
import { expectedSystem } from './implicit-coefficients.ts';

/** The damped fold's step (as its quick case's), Newmark's γ and β given rather than defaulted. */
const H = 1 / 60;
const NEWMARK = { gamma: 0.5, beta: 0.25 } as const;
const OPTIONS = { integrator: 'newmark', dt: H, tolerance: 1e-6, solver: 'pcg', newmarkGamma: NEWMARK.gamma, newmarkBeta: NEWMARK.beta, workgroupSize: 32 } as const; // prettier-ignore

type Terms = { count: number; indices: ArrayLike<number>; gradient: ArrayLike<number>; stiffness: ArrayLike<number>; damping: ArrayLike<number> }; // prettier-ignore

/** blocks_p += (γ κ_e + β β_e) g_j g_jᵀ for each corner j = p of each term e, as (xx, yy, zz, xy, xz, yz). */
function scatter(terms: Terms, system: { damping: number; stiffness: number }, blocks: Float64Array): void {
  for (let e = 0; e < terms.count; e++) {
    const w = system.stiffness * terms.stiffness[e]! + system.damping * terms.damping[e]!;
    for (let j = 0; j < 4; j++) {
      const [x, y, z] = [0, 1, 2].map((q) => terms.gradient[12 * e + 3 * j + q]!) as [number, number, number];
      const p = 6 * terms.indices[4 * e + j]!;
      [x * x, y * y, z * z, x * y, x * z, y * z].forEach((v, q) => (blocks[p + q]! += w * v));
    }
  }
}

/** The expected blocks at the step's start, and how many pairs the CPU lists and activates. */
function expectedBlocks(model: Model): { blocks: Float64Array; pairs: number; active: number } {
  const real = (length: number) => new Float64Array(length);
  const [x, v] = [Float64Array.from(model.particlePositions, Math.fround), Float64Array.from(model.particleVelocities, Math.fround)]; // prettier-ignore
  const system = expectedSystem('newmark', { h: H, rm: 0, rk: 0, ...NEWMARK });
  const blocks = new Float64Array(6 * model.particleCount);
  const self = new CpuSelfContact(model, real);
  self.detect(x, v, H);
  self.states(x, v, true, false);
  scatter(self, system, blocks);
  if (model.bending) {
    const bending = new CpuBending(model, real);
    bending.states(x, v, false);
    scatter(bending, system, blocks);
  }
  return { blocks, pairs: self.count, active: self.stats.activePairs };
}

/** The GPU's blocks after one step, 6 per particle from its two vec4 (xx, yy, zz, 0), (xy, xz, yz, 0). */
async function gpuBlocks(device: GPUDevice, model: Model): Promise<Float64Array> {
  const sim = await WebGpuImplicitSimulation.create(model, { ...OPTIONS, device } as never);
  try {
    sim.step(1);
    const buffer = (sim as unknown as { executor: { selfContact: { diagonal: GPUBuffer } } }).executor.selfContact.diagonal; // prettier-ignore
    const data = new Float32Array((await readBuffer(device, buffer)).buffer);
    return Float64Array.from({ length: 6 * model.particleCount }, (_, k) => data[8 * Math.floor(k / 6) + [0, 1, 2, 4, 5, 6][k % 6]!]!); // prettier-ignore
  } finally {
    sim.destroy();
  }
}

/** The check on `fold` (the scene selfDamped), without and with bending: the reasons it fails. */
export async function selfDiagonalQuick(device: GPUDevice, fold: () => Model): Promise<string[]> {
  const failures: string[] = [];
  const models = { fold: fold(), 'fold with bending': withBending(fold(), { stiffness: 0.01, damping: 0, restAngles: 'flat' }) }; // prettier-ignore
  for (const [name, model] of Object.entries(models)) {
    const { blocks, active } = expectedBlocks(model);
    const gpu = await gpuBlocks(device, model);
    let [worst, largest] = [0, 0];
    blocks.forEach((b, k) => ((worst = Math.max(worst, Math.abs(gpu[k]! - b))), (largest = Math.max(largest, Math.abs(b))))); // prettier-ignore
    // float32 pair states and sums (GPU) against float64: measured 3.3e-6 and 2.7e-6 of the largest
    // entry; 1e-4 as bendingDiagonal (a wrong pair's β, entry or bending block: ≥ 5e-2).
    if (!(active > 0 && worst <= 1e-4 * largest)) failures.push(`${name}: |GPU − CPU| = ${worst}, ${worst / largest} of the largest entry ${largest} (${active} active pairs)`); // prettier-ignore
  }
  return failures;
}
