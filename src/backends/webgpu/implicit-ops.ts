/**
 * The implicit ops of the WebGPU executor (src/integrators/program.ts): `jacobians`, `rhs`,
 * `solve`, `measure` and `newton`, compiled into dispatches of the implicit kernels with no
 * readback. CG's α, β and residuals and the Newton criteria live in a GPU buffer (SolverControl);
 * when a solve or a Newton loop is done, the scalar kernel (solver-scalars.wgsl) zeroes the
 * indirect dispatch arguments of the passes still encoded after it, so they launch no workgroups.
 * CPU mirror: src/backends/cpu/implicit-ops.ts.
 */
import type { ResolvedImplicitOptions } from '../../integrators/implicit-options.ts';
import type { SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import { resumedIterations } from '../../integrators/contact-programs.ts';
import { flatOps, type NewtonQuantity, type Op, type Program } from '../../integrators/program.ts';
import type { Compiled, Dispatch, ExecutorServices, IndirectArguments } from './dispatch.ts';
import { append, indirectBy } from './dispatch.ts';
import { dispatchSize, incidenceWithOthers, VEC4_BYTES } from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { GpuMultigrid } from './multigrid-ops.ts';
import { mapSolverControl, scalarConstant, type GpuSolverTotals } from './solver-control.ts';

/** f32 cannot resolve relative residuals much below this (GPU-NOTES.md). */
export const FLOAT32_TOLERANCE_FLOOR = 1e-6;

const QUANTITY_CONSTANT: Record<NewtonQuantity, string> = { residual: 'RESIDUAL', correction: 'CORRECTION', total: 'TOTAL', start: 'START', change: 'CHANGE' }; // prettier-ignore

/**
 * The solver's internal vectors (arena names): residual r, direction p, s = A p, u = P⁻¹ r and
 * w = A u (Chronopoulos–Gear CG, shaders/cg-step.wgsl; Jacobi's q = A x in w).
 */
export const SOLVER_VECTORS = { r: 'cg.r', p: 'cg.p', s: 'cg.s', u: 'cg.u', w: 'cg.w' } as const;

export class GpuImplicitOps {
  /** SolverControl (indirect arguments, CG and Newton scalars, totals). */
  readonly control: GPUBuffer;
  readonly springStates: GPUBuffer;
  readonly inverseDiagonal: GPUBuffer;
  private readonly bound: Record<string, GPUBuffer>;
  private readonly options: ResolvedImplicitOptions;
  private readonly scalarUniforms = new Map<string, GPUBuffer>();
  private readonly counts: Record<'cg' | 'particles' | 'springs', IndirectArguments>;
  /** Whether the program has a Newton loop (its `converged` is then read from the GPU). */
  private readonly newton: boolean;
  /** Workgroup counts (x, y, 1) of a per-particle and a per-spring pass. */
  private readonly groups: { particles: number[]; springs: number[] };
  /** Staging for {@link readStats}, made once (an adaptive stepper reads it every attempt). */
  private readonly statsReadback: GPUBuffer;
  /** The multigrid preconditioner ('multigrid' solves only); replaced by {@link rebuildMultigrid}. */
  private multigrid: GpuMultigrid | null;
  /** Whether the next `solve` compiled is constrained by contacts (after a `contacts` op). */
  private constrainNext = false;
  /** The SolverParams of the last `solve` compiled (the contact forces' A Δv uses its system). */
  private lastSolver: GPUBuffer | null = null;
  /** The SolverParams of each system (a `solve` op's coefficients), made once. */
  private readonly systems = new Map<(h: number) => SystemCoefficients, GPUBuffer>();

  constructor(
    private readonly x: ExecutorServices,
    program: Program,
    private readonly checkEvery: number,
  ) {
    const { model, device, workgroupSize } = x;
    this.options = program.implicit!;
    this.multigrid = this.options.solver === 'multigrid' ? new GpuMultigrid(x) : null;
    this.newton = flatOps(program.step).some((op) => op.op === 'newton');
    const n = model.particleCount;
    const layouts = kernels();
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const stateStride = layouts.springJacobians.bindings.get('springStates')!.stride;
    this.springStates = x.create('springStates', model.springCount * stateStride, storage);
    this.inverseDiagonal = x.create('inverseDiagonal', 2 * n * VEC4_BYTES, storage);
    const [gx, gy] = dispatchSize(n, workgroupSize, device.limits);
    const [sx, sy] = dispatchSize(Math.max(1, model.springCount), workgroupSize, device.limits);
    const particleGroups = [gx, gy, 1, 0];
    const springGroups = [model.springCount > 0 ? sx : 0, sy, 1, 0];
    const controlLayout = layouts.solverScalars.structs.get('SolverControl')!;
    const initial = new ArrayBuffer(controlLayout.size);
    const offset = (member: string): number => controlLayout.members.get(member)!.offset;
    new Uint32Array(initial, offset('newtonParticleGroups'), 4).set(particleGroups);
    new Uint32Array(initial, offset('newtonSpringGroups'), 4).set(springGroups);
    this.control = x.create('solverControl', controlLayout.size, storage | GPUBufferUsage.INDIRECT, initial);
    this.statsReadback = x.create('solverControlReadback', controlLayout.size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST); // prettier-ignore
    const at = (member: string): IndirectArguments => ({ buffer: this.control, offset: offset(member) });
    this.counts = {
      cg: at('cgGroups'),
      particles: at('newtonParticleGroups'),
      springs: at('newtonSpringGroups'),
    };
    this.groups = { particles: particleGroups, springs: springGroups };
    const solver = this.solverParams(() => ({ mass: 0, damping: 0, stiffness: 0 }));
    this.bound = {
      solver,
      control: this.control,
      springStates: this.springStates,
      inverseDiagonal: this.inverseDiagonal,
      incidence: x.create('incidence', 4 * (n + 1 + 2 * model.incidence.entries.length), storage, incidenceWithOthers(model)), // prettier-ignore
      springEntries: this.springEntriesBuffer(storage),
      entryBlocks: x.create('entryBlocks', model.incidence.entries.length * VEC4_BYTES, storage),
      entryStiffness: x.create('entryStiffness', model.incidence.entries.length * 4, storage),
      particleMass: x.create('particleMass', n * 4, storage, Float32Array.from(model.particleMass, (m, i) => (model.particleFixed[i] ? 0 : m)).buffer), // prettier-ignore
      // The scalar kernel gates the multigrid's coarse levels with cgGroups (one zero entry: none).
      levelGroups: this.multigrid?.levelGroups ?? x.create('noLevelGroups', 16, storage),
      levelGroupsFull: this.multigrid?.levelGroupsFull ?? x.create('noLevelGroupsFull', 16, storage),
      // cg-init and cg-step read the contact normals when a solve is constrained.
      contactNormals: x.contacts?.contactNormals ?? x.create('noContactNormals', 16, storage),
      // system-diagonal.wgsl adds bending's blocks (withBending = 1) from here.
      bendingDiagonal:
        x.bending?.diagonal ?? x.selfContact?.diagonal ?? x.create('noBendingDiagonal', 16, storage),
    };
  }

  /** Masses, f32 per particle (kg; 0 for a fixed particle): written when particles are pinned or released. */
  get particleMass(): GPUBuffer {
    return this.bound['particleMass']!;
  }

  /**
   * A new multigrid hierarchy from the model's fixed flags now (after a particle it held as free
   * was pinned), made by `make`; the caller recompiles every block that solves.
   */
  rebuildMultigrid(make: () => GpuMultigrid): void {
    if (!this.multigrid) return;
    this.multigrid = make();
    this.bound['levelGroups'] = this.multigrid.levelGroups;
    this.bound['levelGroupsFull'] = this.multigrid.levelGroupsFull;
  }

  /** A SolverParams uniform: the options, and A = α M + β B + γ K of `system` (rewritten with h). */
  solverParams(system: (h: number) => SystemCoefficients): GPUBuffer {
    let found = this.systems.get(system);
    if (found) return found;
    const o = this.options;
    const tolerance = Math.max(o.tolerance, FLOAT32_TOLERANCE_FLOOR);
    found = this.x.uniform('solverScalars', 'SolverParams', (h) => {
      const a = system(h);
      return {
        massCoefficient: a.mass,
        dampingCoefficient: a.damping,
        stiffnessCoefficient: a.stiffness,
        tolerance2: tolerance * tolerance,
        maxIterations: o.maxIterations,
        preconditioner: o.solver === 'cg' || o.solver === 'multigrid' ? 0 : o.preconditioner === 'block' ? 2 : 1,
        exactJacobian: o.jacobian === 'exact' ? 1 : 0,
        newtonIterations: o.newtonIterations,
        correctionTolerance: o.correctionTolerance,
        residualTolerance: o.residualTolerance,
        absoluteTolerance: o.absoluteResidualTolerance,
        newtonError: o.newtonError,
        partialCount: this.x.partialCount,
        h,
        particleGroups: this.groups.particles,
        springGroups: this.groups.springs,
      };
    }, true); // prettier-ignore
    this.systems.set(system, found);
    return found;
  }

  /** Per spring, the positions of its two entries in the incidence list (first endpoint's, second's). */
  private springEntriesBuffer(usage: GPUBufferUsageFlags): GPUBuffer {
    const { model } = this.x;
    const data = new Uint32Array(2 * model.springCount);
    model.incidence.entries.forEach((entry, e) => (data[entry] = e));
    return this.x.create('springEntries', data.byteLength, usage, data.buffer);
  }

  /** A dispatch of an implicit kernel bound to the solver's buffers and `extra`. */
  kernel(name: KernelName, domain: Dispatch['domain'], refs: Record<string, number> = {}, extra: Record<string, GPUBuffer> = {}): Dispatch {
    return this.x.dispatch(name, name, domain, { ...this.bound, ...extra }, refs);
  } // prettier-ignore

  /** The scalar kernel in `mode` (MEASURE: partial k into quantities[k]; CARIBOU_CHECK: the loop's step / h). */
  scalars(mode: string, quantities: readonly number[] = [0, 0, 0, 0], stepFraction = 1): Dispatch {
    const key = `${mode}/${quantities.join(',')}/${stepFraction}`;
    let step = this.scalarUniforms.get(key);
    if (!step) {
      step = this.x.uniform('solverScalars', 'ScalarStep', () => ({
        mode: scalarConstant(mode),
        quantities,
        stepFraction,
      }));
      this.scalarUniforms.set(key, step);
    }
    return this.kernel('solverScalars', 'single', {}, { step });
  }

  compile(op: Op, heads: Map<string, number>, out: Compiled[]): void {
    const ref = (name: string): number => this.x.reference(name, heads);
    switch (op.op) {
      case 'jacobians':
        out.push(this.kernel('springJacobians', 'springs', { xRef: ref(op.x), vRef: ref(op.v) }), ...(this.x.bending ? [this.x.bending.jacobians(ref(op.x), ref(op.v))] : []), ...(this.x.selfContact ? [this.x.selfContact.jacobians(ref(op.x), ref(op.v))] : [])); // prettier-ignore
        return;
      case 'rhs': {
        const coefficients = this.x.uniform('implicitRhs', 'RhsCoefficients', (h) => ({ ...op.coefficients(h) }), true);
        const refs = { vRef: ref(op.v), aRef: ref(op.a), extraRef: ref(op.extra), toRef: ref(op.to) };
        out.push(this.kernel('implicitRhs', 'particles', refs, { coefficients }), ...(this.x.bending?.rhs(op, refs, this.bound['solver']!) ?? []), ...(this.x.selfContact?.rhs(op, refs, this.bound['solver']!) ?? [])); // prettier-ignore
        return;
      }
      case 'solve':
        append(out, this.solve(ref(op.rhs), ref(op.to), op.system, op.resume === true));
        return;
      case 'measure': {
        const entries = Object.entries(op.quantities);
        const refs: Record<string, number> = { count: entries.length };
        entries.forEach(([, name], k) => (refs[`u${k}`] = refs[`w${k}`] = ref(name)));
        const quantities = [0, 1, 2, 3].map((k) => (entries[k] ? scalarConstant(QUANTITY_CONSTANT[entries[k][0] as NewtonQuantity]) : 0)); // prettier-ignore
        out.push(this.x.dispatch('programDots', 'measure', 'particles', {}, refs), this.scalars('MEASURE', quantities));
        return;
      }
      case 'newton':
        return this.compileNewton(op, heads, out);
      case 'contactFilter':
        out.push(this.x.contacts!.filter(ref(op.vector), ref(op.from ?? op.vector)));
        return;
      case 'contactFriction':
        out.push(this.x.contacts!.respond(op, heads));
        return;
      case 'contacts':
      case 'contactForces': {
        // `contacts` constrains the next solve (and `contactForces` with `release` the resumed
        // one); `contactForces` needs A Δv with the last one's system.
        this.constrainNext = op.op === 'contacts' || op.release === true;
        // contactForces' A Δv comes first in its list: bending's part of it follows it.
        let bent: Dispatch[] = [];
        const product = (inputRef: number, productRef: number): Dispatch => {
          const [springs, ...rest] = this.product({ inputRef, productRef }, this.lastSolver!);
          bent = rest;
          return springs!;
        };
        const [first, ...after] = this.x.contacts!.compileSolveOp(op, heads, product);
        out.push(...(first ? [first, ...bent] : []), ...after);
        return;
      }
      default:
        throw new Error(`'${op.op}' is not an implicit op`);
    }
  } // prettier-ignore

  /**
   * One linear solve A x = b. Jacobi: per iteration q = A x, the update, its check. CG and PCG
   * (Chronopoulos–Gear, shaders/cg-step.wgsl; multigrid: {@link multigridSolve}): the blocks per
   * incidence entry (system-blocks.wgsl), the inverse diagonal (pcg), the start, w = A u with the
   * reduction, CG_FIRST, then per iteration the vector step, w = A u with the reduction, CG_NEXT —
   * three dispatches, the first two indirect on cgGroups (zeroed when the solve is done), a
   * checkpoint every `checkEvery` iterations, then the solve's totals. `resume` (program.ts): the last solve continued, its blocks and diagonal kept.
   */
  // prettier-ignore
  solve(rhsRef: number, solutionRef: number, system: (h: number) => SystemCoefficients, resume = false): Compiled[] {
    const o = this.options;
    const solver = this.solverParams(system);
    this.lastSolver = solver;
    const constrained = this.constrainNext ? 1 : 0;
    if (this.multigrid) return this.multigridSolve(rhsRef, solutionRef, solver, constrained, resume);
    const v = this.solverVectors();
    const list: Compiled[] = resume ? [] : [this.kernel('systemBlocks', 'springs', {}, { solver })];
    if (o.solver !== 'cg' && !resume) list.push(...this.rankOneDiagonal(solver), this.kernel('systemDiagonal', 'particles', { withBending: this.x.bending || this.x.selfContact ? 1 : 0 }, { solver })); // prettier-ignore
    list.push(...this.start(rhsRef, solutionRef, solver, constrained, resume, o.solver === 'jacobi'));
    if (o.solver === 'jacobi') {
      const iteration = indirectBy([...this.product({ inputRef: solutionRef, productRef: v.w }, solver), this.kernel('jacobiUpdate', 'particles', { rhsRef, productRef: v.w, solutionRef, constrained }), this.scalars('JACOBI')], { particles: this.counts.cg }); // prettier-ignore
      return this.iterate(list, iteration, resume);
    }
    // Constrained: w = S A u (the reduction's u·A u is the same, u being filtered).
    const product = [...this.product({ inputRef: v.u, productRef: v.w, withResidual: 1, residualRef: v.r }, solver), ...this.filtered(v.w, constrained)]; // prettier-ignore
    list.push(...indirectBy(product, { particles: this.counts.cg }), this.firstCheck(constrained));
    const step = this.kernel('cgStep', 'particles', { solutionRef, residualRef: v.r, directionRef: v.p, stepRef: v.s, productRef: v.w, preconditionedRef: v.u, constrained }, { solver }); // prettier-ignore
    return this.iterate(list, [...indirectBy([step, ...product], { particles: this.counts.cg }), this.scalars('CG_NEXT')], resume); // prettier-ignore
  }

  /** q = A p by system-product.wgsl (refs: inputRef p, productRef q, …), then bending's part of A p. */
  private product(refs: Record<string, number>, solver: GPUBuffer): Dispatch[] {
    return [this.kernel('systemProduct', 'particles', refs, { solver }), ...this.rankOneProduct(solver, refs['inputRef']!, refs['productRef']!)]; // prettier-ignore
  }

  /** Bending's and self-contact's parts of A p (rank-one terms), after the springs'. */
  rankOneProduct(solver: GPUBuffer, inputRef: number, productRef: number): Dispatch[] {
    return [...(this.x.bending?.product(solver, inputRef, productRef) ?? []), ...(this.x.selfContact?.product(solver, inputRef, productRef) ?? [])]; // prettier-ignore
  }

  /** Bending's then self-contact's diagonal blocks (the second adds to the first's). */
  rankOneDiagonal(solver: GPUBuffer): Dispatch[] {
    return [...(this.x.bending ? [this.x.bending.diagonalPass(solver)] : []), ...(this.x.selfContact ? [this.x.selfContact.diagonalPass(solver)] : [])]; // prettier-ignore
  }

  /** The contact filter of arena vector `ref` in a constrained solve (none otherwise). */
  private filtered(ref: number, constrained: number): Dispatch[] {
    return constrained ? [this.x.contacts!.filter(ref)] : [];
  }

  /** CG_FIRST, which checks r₀ only after a warm start (or a constrained x₀ = z). */
  private firstCheck(constrained = 0): Dispatch {
    return this.scalars('CG_FIRST', [this.options.warmStart || constrained ? 1 : 0, 0, 0, 0]);
  }

  /** `list`, then `iteration` maxIterations times with the checkpoints, then the totals. */
  private iterate(list: Compiled[], iteration: readonly Compiled[], resume = false): Compiled[] {
    const max = resume ? resumedIterations(this.options.maxIterations) : this.options.maxIterations;
    for (let k = 1; k <= max; k++) {
      append(list, iteration);
      if (this.checkEvery > 0 && k % this.checkEvery === 0 && k < max)
        list.push({ kind: 'checkpoint', at: this.counts.cg, until: 'solveEnd' });
    }
    list.push({ kind: 'label', id: 'solveEnd' }, this.scalars('SOLVE_END', [resume ? 1 : 0, 0, 0, 0]));
    return list;
  }

  /** The arena references of the solver's vectors (names in SOLVER_VECTORS). */
  private solverVectors(): Record<keyof typeof SOLVER_VECTORS, number> {
    const entries = Object.entries(SOLVER_VECTORS).map(([key, name]) => [key, this.x.reference(name)]);
    return Object.fromEntries(entries) as Record<keyof typeof SOLVER_VECTORS, number>;
  }

  /**
   * x = 0 and r = b, or with warm starts x kept and r = b − A x (the product first); u = P⁻¹ r;
   * CG_START (b·b) starts the solve unless b = 0; resumed, unless r is within the last solve's
   * tolerance. Resumed, r is the last solve's, or with `afresh` b − A x again (Jacobi keeps none).
   */
  // prettier-ignore
  private start(rhsRef: number, solutionRef: number, solver: GPUBuffer, constrained = 0, resume = false, afresh = false): Compiled[] {
    const v = this.solverVectors();
    const warm = this.options.warmStart || constrained === 1;
    const kept = resume && !afresh;
    const init = this.kernel('cgInit', 'particles', { rhsRef, solutionRef, residualRef: v.r, directionRef: v.u, warm: warm ? 1 : 0, productRef: v.w, constrained, resume: kept ? 1 : 0 }, { solver }); // prettier-ignore
    return [...(warm && !kept ? this.product({ inputRef: solutionRef, productRef: v.w }, solver) : []), init, this.scalars('CG_START', [resume ? 1 : 0, 0, 0, 0])]; // prettier-ignore
  }

  /**
   * CG preconditioned by a multigrid V-cycle (multigrid-ops.ts): the levels' operators, the start,
   * u = V(r), w = A u with the reduction, CG_FIRST; each iteration the vector step (u given),
   * u = V(r), w = A u with the reduction, CG_NEXT. Every pass after CG_START is gated by cgGroups
   * (the coarse levels by their own counts), so a converged solve stops them all.
   */
  private multigridSolve(
    rhsRef: number,
    solutionRef: number,
    solver: GPUBuffer,
    constrained: number,
    resume: boolean,
  ): Compiled[] {
    const mg = this.multigrid!;
    const v = this.solverVectors();
    const cg = { particles: this.counts.cg };
    const cycle = mg.vcycle(v.r, this.x.reference('mg.x'), this.x.reference('mg.y'));
    // Constrained: u = S V(r) and w = S A u.
    const preconditioned = [...cycle.list, ...this.filtered(cycle.z, constrained)];
    const product = [mg.product(cycle.z, v.w, v.r), ...this.rankOneProduct(solver, cycle.z, v.w), ...this.filtered(v.w, constrained)]; // prettier-ignore
    const step = this.kernel('cgStep', 'particles', { solutionRef, residualRef: v.r, directionRef: v.p, stepRef: v.s, productRef: v.w, preconditionedRef: cycle.z, givenU: 1 }, { solver }); // prettier-ignore
    // Resumed, P's levels are re-assembled after CG_START, on its counts: mg-product.wgsl reads level
    // 0's S + P (S P S = 0 for the current S only); A x₀ and A Δv read the blocks (system-product).
    const assembly = mg.assemble(solver, this.bound['particleMass']!, this.springStates, constrained, resume); // prettier-ignore
    const list: Compiled[] = [
      ...(resume ? [] : assembly),
      ...((this.options.warmStart || constrained) && !resume ? [this.kernel('systemBlocks', 'springs', {}, { solver })] : []), // prettier-ignore
      ...this.start(rhsRef, solutionRef, solver, constrained, resume),
      ...(resume ? indirectBy(assembly, cg) : []),
      ...indirectBy([...preconditioned, ...product], cg),
      this.firstCheck(constrained),
    ];
    return this.iterate(list, [...indirectBy([step, ...preconditioned, ...product], cg), this.scalars('CG_NEXT')], resume); // prettier-ignore
  }

  /**
   * `newton`: NEWTON_BEGIN, `begin`, then newtonIterations + 1 unrolled iterations of
   * residual → check → update → NEXT, every dispatch in them indirect on the Newton counts (zeroed
   * by the check that ends the loop), and NEWTON_END, which restores the counts.
   */
  private compileNewton(op: Extract<Op, { op: 'newton' }>, heads: Map<string, number>, out: Compiled[]): void {
    const counts = { particles: this.counts.particles, springs: this.counts.springs };
    const check = this.scalars(op.criterion === 'caribou' ? 'CARIBOU_CHECK' : 'VARIATIONAL_CHECK', [op.estimator ? 1 : 0, 0, 0, 0], op.stepFraction ?? 1);
    const residual: Compiled[] = [];
    const update: Compiled[] = [];
    this.x.compile(op.residual, heads, residual);
    this.x.compile(op.update, heads, update);
    const [residualList, updateList] = [indirectBy(residual, counts), indirectBy(update, counts)];
    out.push(this.scalars('NEWTON_BEGIN'));
    this.x.compile(op.begin, heads, out);
    const max = this.options.newtonIterations;
    for (let i = 0; i <= max; i++) {
      append(out, residualList);
      out.push(check, { kind: 'checkpoint', at: this.counts.particles, until: 'newtonEnd' });
      if (i < max) append(out, [...updateList, this.scalars('NEWTON_NEXT')]);
    }
    out.push({ kind: 'label', id: 'newtonEnd' }, this.scalars('NEWTON_END'));
  } // prettier-ignore

  /** The statistics of every solve and Newton loop so far (a readback: not for the real-time path). */
  async readStats(): Promise<GpuSolverTotals> {
    const encoder = this.x.device.createCommandEncoder({ label: 'GpuImplicitOps.readStats' });
    this.encodeStatsReadback(encoder);
    this.x.device.queue.submit([encoder.finish()]);
    return this.mapStats();
  }

  /** Encodes the copy {@link mapStats} reads, to share a submission with other readbacks. */
  encodeStatsReadback(encoder: GPUCommandEncoder): void {
    encoder.copyBufferToBuffer(this.control, 0, this.statsReadback, 0, this.statsReadback.size);
  }

  /** The statistics copied by {@link encodeStatsReadback} (after its submission; calls one at a time). */
  mapStats(): Promise<GpuSolverTotals> {
    return mapSolverControl(this.statsReadback, this.newton);
  }
}
