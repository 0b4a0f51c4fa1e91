/**
 * The corrector of the WebGPU executor (`correct`, src/integrators/program.ts): fixed-point sweeps
 * stopped on the GPU by program-control.wgsl, which zeroes the indirect arguments of the sweeps
 * still encoded once the change is within the tolerance. CPU mirror: src/backends/cpu/executor.ts.
 */
import type { CorrectorStats } from '../cpu/executor.ts';
import type { Corrector, Op } from '../../integrators/program.ts';
import { indirectBy, type Compiled, type Dispatch, type ExecutorServices } from './dispatch.ts';
import { dispatchSize, readBuffer } from './gpu-common.ts';
import { kernels } from './kernels.ts';
import { structBytes } from './layout.ts';

/** A mode of program-control.wgsl (BEGIN, DECIDE, END), read from its WGSL constants. */
const controlMode = (name: 'BEGIN' | 'DECIDE' | 'END'): number =>
  kernels().programControl.constants.get(name)!;

export class GpuCorrectorOps {
  /** CorrectorControl: indirect arguments of the sweeps, the decision, statistics. */
  readonly control: GPUBuffer;

  constructor(
    private readonly x: ExecutorServices,
    private readonly c: Corrector,
  ) {
    this.control = this.createControl();
  }

  /** The corrector's control (program-control.wgsl): full workgroup counts, zero statistics. */
  private createControl(): GPUBuffer {
    const layout = kernels().programControl.structs.get('CorrectorControl')!;
    const [px, py] = dispatchSize(this.x.model.particleCount, this.x.workgroupSize, this.x.device.limits);
    const [sx, sy] = dispatchSize(Math.max(1, this.x.model.springCount), this.x.workgroupSize, this.x.device.limits);
    const values: Record<string, number> = Object.fromEntries([...layout.members.keys()].map((name) => [name, 0]));
    Object.assign(values, { groupsParticleX: px, groupsParticleY: py, groupsSpringX: this.x.model.springCount > 0 ? sx : 0, groupsSpringY: sy, partialCount: this.x.partialCount, converged: 1 });
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    return this.x.create('control', layout.size, usage, structBytes(layout, values));
  } // prettier-ignore

  /**
   * `correct`: maxIterations sweeps, each body → d = next − current → its scaled max-norm →
   * current = next → DECIDE (program-control.wgsl). With a tolerance the sweeps are dispatched
   * indirectly, so those after convergence launch nothing; without one (PECE) they are direct.
   */
  compile(heads: Map<string, number>, out: Compiled[]): void {
    const c = this.c;
    const tol = c.tolerance;
    const tolerances = { relative: tol, absolutePosition: tol, absoluteVelocity: tol, positionWeight: 1, velocityWeight: 1, norm: 'max' as const };
    const control = (mode: number): Dispatch => this.x.dispatch('programControl', 'control', 'single', { control: this.control, op: this.x.uniform('programControl', 'ControlOp', () => ({ mode, check: c.check ? 1 : 0 })) });
    const members = kernels().programControl.structs.get('CorrectorControl')!.members;
    const buffer = this.control;
    const counts = { particles: { buffer, offset: members.get('particleX')!.offset }, springs: { buffer, offset: members.get('springX')!.offset } };
    if (c.check) out.push(control(controlMode('BEGIN')));
    for (let k = 0; k < c.maxIterations; k++) {
      const sweep: Compiled[] = [];
      const check: Op[] = c.check
        ? [
            { op: 'combine', outputs: [{ to: 'pc.dx', terms: [[1, 'pc.xNext'], [-1, 'pc.x']] }, { to: 'pc.dv', terms: [[1, 'pc.vNext'], [-1, 'pc.v']] }] },
            { op: 'norm', error: ['pc.dx', 'pc.dv'], start: ['x', 'v'], end: ['pc.xNext', 'pc.vNext'], tolerances },
          ]
        : [];
      const copy: Op = { op: 'combine', outputs: [{ to: 'pc.x', terms: [[1, 'pc.xNext']] }, { to: 'pc.v', terms: [[1, 'pc.vNext']] }] };
      this.x.compile([...c.body, ...check, copy], heads, sweep);
      if (!c.check) out.push(...sweep);
      else out.push(...indirectBy(sweep, counts), control(controlMode('DECIDE')));
    }
    if (c.check) out.push(control(controlMode('END')));
  } // prettier-ignore

  /** The corrector's statistics (a readback: call outside the real-time path). */
  async readStats(): Promise<CorrectorStats> {
    const data = new DataView((await readBuffer(this.x.device, this.control)).buffer);
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
}
