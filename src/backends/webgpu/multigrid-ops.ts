/**
 * The multigrid preconditioner on WebGPU (CPU mirror: src/backends/cpu/multigrid.ts): the
 * hierarchy of src/model/multigrid-hierarchy.ts uploaded once into four buffers, the coarse
 * operators assembled at every solve by gathers (shaders/mg-edges.wgsl, mg-nodes.wgsl), and a
 * V-cycle compiled into dispatches of mg-smooth / mg-residual / mg-restrict / mg-prolong: one
 * dispatch per sweep, residual, restriction and prolongation of a level, down to the coarse tail
 * (MULTIGRID_TAIL), whose levels one workgroup cycles in one dispatch (mg-tail.wgsl). A coarse
 * level's passes are dispatched indirectly on its own workgroup counts, which the scalar kernel
 * sets while a solve runs and zeroes once it is done, so a converged solve launches nothing at
 * any level.
 */
import {
  buildMultigridHierarchy,
  MULTIGRID_CYCLE,
  type MultigridHierarchy,
} from '../../model/multigrid-hierarchy.ts';
import { WeftInputError } from '../../core/errors.ts';
import type { WeightedLists } from '../../model/galerkin-terms.ts';
import type { Compiled, Dispatch, ExecutorServices } from './dispatch.ts';
import { dispatchSize, VEC4_BYTES } from './gpu-common.ts';

/**
 * The coarse tail: the levels from the first below level 0 whose nodes and every coarser level's
 * number at most `nodesPerThread` × workgroupSize, cycled by one workgroup in one dispatch. Per
 * level above it the V-cycle takes 2 × smoothing + 3 dispatches (9), each a launch a GPU pays for
 * whatever its size — and encoding costs the host tens of µs per dispatch (README, the H200's
 * profile) — while a level of a few hundred nodes is a few loads per thread of one workgroup. At
 * 256² this turns the last 4 of 8 levels (245, 59, 14, 3 nodes) into one dispatch: 37 dispatches
 * per V-cycle, not 64. Level 0 keeps its passes (a thread per particle) even when small, and the
 * tail's workgroup is workgroupSize threads: on a CPU adapter one workgroup runs on one core, and a
 * 16² cloth's whole cycle in one workgroup of 256 threads took 1.8× the per-level passes' time.
 */
export const MULTIGRID_TAIL = { nodesPerThread: 4, stride: 10 } as const;

interface LevelPlace {
  readonly nodeBase: number;
  readonly nodeCount: number;
  readonly edgeBase: number;
  readonly edgeCount: number;
  readonly graphBase: number;
  /** Coarse levels: first index of b, x, y in mgVectors. */
  readonly vectors: readonly [number, number, number];
}

/** Where a coarsening's weighted lists start in mgGraph, and its correction scale θ. */
interface CoarseningPlace {
  readonly restrictList: number;
  readonly prolongList: number;
  readonly nodeTermList: number;
  readonly edgeTermList: number;
  readonly correction: number;
}

export class GpuMultigrid {
  /** INDIRECT, set by the scalar kernel: coarse level l's workgroups at entry l − 1, the tail's, then the assembly's. */
  readonly levelGroups: GPUBuffer;
  readonly levelGroupsFull: GPUBuffer;
  /** INDIRECT: the workgroup counts of coarse level l's edge and node assembly at 32 (l − 1), fixed. */
  private readonly assembleGroups: GPUBuffer;
  private readonly hierarchy: MultigridHierarchy;
  private readonly levels: LevelPlace[] = [];
  private readonly coarsenings: CoarseningPlace[] = [];
  private readonly bound: Record<string, GPUBuffer>;
  /** The first level of the coarse tail (MULTIGRID_TAIL), and its table's first entry in mgGraph. */
  readonly tailStart: number;
  private readonly tailTable: number;

  constructor(private readonly x: ExecutorServices) {
    const { model, device, workgroupSize } = x;
    this.hierarchy = buildMultigridHierarchy(model);
    // mgGraph: every level's adjacency, then every coarsening's weighted lists, as u32. Sized first
    // and filled in place: at 1024² it holds over 2²⁷ entries, past what a JavaScript array holds
    // ("Invalid array length" on an H200, where the buffer itself would have fitted).
    const lists = this.hierarchy.coarsenings.flatMap((c) => [c.restriction, c.prolongation, c.nodeTerms, c.edgeTerms]); // prettier-ignore
    const levelCount = this.hierarchy.levels.length;
    this.tailStart = levelCount - 1;
    const tailNodes = MULTIGRID_TAIL.nodesPerThread * workgroupSize;
    while (this.tailStart > 1 && this.hierarchy.levels[this.tailStart - 1]!.nodeCount <= tailNodes)
      this.tailStart--;
    const length =
      this.hierarchy.levels.reduce((sum, level) => sum + level.offsets.length + level.entries.length, 0) +
      lists.reduce((sum, list) => sum + list.offsets.length + 2 * list.refs.length, 0) +
      MULTIGRID_TAIL.stride * (levelCount - this.tailStart);
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (4 * length > limit)
      throw new WeftInputError('solver', `'multigrid' is too large for this device: its hierarchy's index and weight lists need ${4 * length} bytes, the device allows ${limit} per storage buffer (use solver 'pcg', or a device with a larger maxStorageBufferBindingSize)`); // prettier-ignore
    const graph = new Uint32Array(length);
    const graphWeights = new Float32Array(graph.buffer);
    let used = 0;
    const append = (values: ArrayLike<number>): number => {
      graph.set(values, used);
      used += values.length;
      return used - values.length;
    };
    let [nodes, edges, coarseNodes] = [0, 0, 0];
    const coarseOffsets: number[] = [];
    const places = this.hierarchy.levels.map((level) => {
      const graphBase = append(level.offsets);
      append(level.entries);
      const place = { nodeBase: nodes, nodeCount: level.nodeCount, edgeBase: edges, edgeCount: level.edgeCount, graphBase }; // prettier-ignore
      coarseOffsets.push(nodes === 0 ? 0 : coarseNodes);
      if (nodes > 0) coarseNodes += level.nodeCount;
      nodes += level.nodeCount;
      edges += level.edgeCount;
      return place;
    });
    // The coarse levels' b, x, y: three regions of mgVectors.
    places.forEach((place, l) => {
      const at = coarseOffsets[l]!;
      this.levels.push({ ...place, vectors: [at, coarseNodes + at, 2 * coarseNodes + at] });
    });
    // A weighted list: its offsets, then (ref, f32 weight bits) pairs (shaders/mg-common.wgsl).
    const appendList = (list: WeightedLists): number => {
      const at = append(list.offsets);
      for (let t = 0; t < list.refs.length; t++) {
        graph[used] = list.refs[t]!;
        graphWeights[used + 1] = list.weights[t]!;
        used += 2;
      }
      return at;
    };
    for (const c of this.hierarchy.coarsenings) {
      const [restrictList, prolongList] = [appendList(c.restriction), appendList(c.prolongation)];
      const [nodeTermList, edgeTermList] = [appendList(c.nodeTerms), appendList(c.edgeTerms)];
      this.coarsenings.push({ restrictList, prolongList, nodeTermList, edgeTermList, correction: c.correction }); // prettier-ignore
    }
    // The tail's table, in the layout of shaders/mg-tail.wgsl's header (stride MULTIGRID_TAIL.stride).
    this.tailTable = used;
    for (let l = this.tailStart; l < levelCount; l++) {
      const [p, c] = [this.levels[l]!, this.coarsenings[l]];
      append([p.nodeBase, p.nodeCount, p.edgeBase, p.graphBase, ...p.vectors, c?.restrictList ?? 0, c?.prolongList ?? 0]); // prettier-ignore
      graphWeights[used++] = c?.correction ?? 0;
    }
    if (used !== length) throw new Error(`mgGraph: ${used} entries written, ${length} sized`);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const full = this.levels.slice(1).flatMap((place) => {
      const [gx, gy] = dispatchSize(place.nodeCount, workgroupSize, device.limits);
      return [gx, gy, 1, 0];
    });
    // The coarse levels' assembly: per level l ≥ 1 the workgroups of its edges, then of its nodes.
    const assembly = this.levels.slice(1).flatMap((place) => [place.edgeCount, place.nodeCount].flatMap((count) => [...dispatchSize(Math.max(1, count), workgroupSize, device.limits).slice(0, 2), 1, 0])); // prettier-ignore
    // After the levels' entries, one that gates the coarse tail (mg-tail.wgsl: one workgroup while
    // a solve runs), then the assembly's, gated for a resumed solve's re-assembly (`assemble`).
    const groups = Uint32Array.from([...full, 1, 1, 1, 0, ...assembly]);
    this.assembleGroups = x.create('mg.assembleGroups', 4 * Math.max(4, assembly.length), storage | GPUBufferUsage.INDIRECT, Uint32Array.from(assembly.length ? assembly : [0, 0, 0, 0]).buffer); // prettier-ignore
    this.levelGroups = x.create('mg.levelGroups', groups.byteLength, storage | GPUBufferUsage.INDIRECT);
    this.levelGroupsFull = x.create('mg.levelGroupsFull', groups.byteLength, storage, groups.buffer);
    this.bound = {
      mgGraph: x.create('mg.graph', graph.byteLength, storage, graph.buffer),
      mgNodes: x.create('mg.nodes', 4 * nodes * VEC4_BYTES, storage),
      mgEdges: x.create('mg.edges', 2 * Math.max(1, edges) * VEC4_BYTES, storage),
      mgVectors: x.create('mg.vectors', 3 * Math.max(1, coarseNodes) * VEC4_BYTES, storage),
      // Level 0's smoother adds bending's diagonal blocks (mg-nodes.wgsl withBending).
      bendingDiagonal:
        x.bending?.diagonal ?? x.selfContact?.diagonal ?? x.create('mg.noBendingDiagonal', 16, storage),
      // A constrained solve's level 0 adds the contacts' penalty (mg-nodes.wgsl).
      contactNormals: x.contacts?.contactNormals ?? x.create('mg.noContactNormals', 16, storage),
    };
  }

  private overrides(l: number): Record<string, number> {
    const p = this.levels[l]!;
    return { nodeBase: p.nodeBase, nodeCount: p.nodeCount, edgeBase: p.edgeBase, graphBase: p.graphBase, onArena: l === 0 ? 1 : 0 }; // prettier-ignore
  }

  /** A pass over level l's nodes: level 0 per particle (the caller gates it), else on its own counts. */
  private pass(
    kernel: 'mgSmooth' | 'mgResidual' | 'mgRestrict' | 'mgProlong',
    l: number,
    constants: Record<string, number>,
    extra: Record<string, GPUBuffer> = {},
  ): Dispatch {
    const d = this.x.dispatch(kernel, kernel, 'particles', { ...this.bound, ...extra }, { ...this.overrides(l), ...constants }, this.levels[l]!.nodeCount); // prettier-ignore
    return l === 0 ? d : { ...d, indirect: { buffer: this.levelGroups, offset: 16 * (l - 1) } };
  }

  /**
   * Every level's operator for the solve whose SolverParams is `solver` (after its spring
   * states): per level its edges, then its nodes, level 0 from the springs and particles, with
   * the contacts' penalty when `constrained` (MULTIGRID_CYCLE.contactPenalty). `resumed`: a solve
   * resumed within its step (contacts released or made to slide), where only the penalty changed:
   * level 0's nodes and the coarse levels, not bending's and self-contact's diagonal blocks or
   * level 0's edges (the springs' blocks); the coarse levels on levelGroups' gated counts (none
   * when CG_START finds nothing to resume), level 0's nodes left for the caller to gate.
   */
  assemble(
    solver: GPUBuffer,
    particleMass: GPUBuffer,
    springStates: GPUBuffer,
    constrained: number,
    resumed = false,
  ): Compiled[] {
    const out: Compiled[] = resumed ? [] : [...(this.x.bending ? [this.x.bending.diagonalPass(solver)] : []), ...(this.x.selfContact ? [this.x.selfContact.diagonalPass(solver)] : [])]; // prettier-ignore
    const extra = { ...this.bound, solver, particleMass, springStates };
    this.levels.forEach((place, l) => {
      const fine = this.levels[l - 1];
      const c = this.coarsenings[l - 1];
      const fineBases = { fineNodeBase: fine?.nodeBase ?? 0, fineEdgeBase: fine?.edgeBase ?? 0 };
      const edgeConstants = { ...this.overrides(l), ...fineBases, fromSprings: l === 0 ? 1 : 0, edgeCount: place.edgeCount, edgeTermList: c?.edgeTermList ?? 0 }; // prettier-ignore
      const nodeConstants = { ...this.overrides(l), ...fineBases, fromParticles: l === 0 ? 1 : 0, nodeTermList: c?.nodeTermList ?? 0, withBending: this.x.bending || this.x.selfContact ? 1 : 0, constrained, contactPenalty: MULTIGRID_CYCLE.contactPenalty }; // prettier-ignore
      const edges = this.x.dispatch('mgEdges', 'mgEdges', l === 0 ? 'springs' : 'particles', extra, edgeConstants, place.edgeCount); // prettier-ignore
      const nodes = this.x.dispatch('mgNodes', 'mgNodes', 'particles', extra, nodeConstants, place.nodeCount);
      // A coarse level's passes get indirect counts of their own, so that a Newton loop's gate
      // (sized for the particles and springs) never replaces them: smoothed aggregation's coarse
      // levels can have more edges than the model has particles.
      if (l === 0) out.push(...(resumed ? [] : [edges]), nodes);
      else {
        const [buffer, base] = resumed
          ? [this.levelGroups, 16 * this.levels.length]
          : [this.assembleGroups, 0];
        out.push({ ...edges, indirect: { buffer, offset: base + 32 * (l - 1) } }, { ...nodes, indirect: { buffer, offset: base + 32 * (l - 1) + 16 } }); // prettier-ignore
      }
    });
    return out;
  }

  /** q = A p on level 0 from the compact blocks (arena vectors), with CG's (p·q, r·p, r·r) partials. */
  product(p: number, q: number, r: number): Dispatch {
    return this.x.dispatch('mgProduct', 'mgProduct', 'particles', this.bound, { ...this.overrides(0), inputRef: p, productRef: q, withResidual: 1, residualRef: r }); // prettier-ignore
  }

  /**
   * One V-cycle z = V(b) from z = 0, b the arena vector `b`, iterates in the arena vectors `x` and
   * `y` (alternated by the sweeps); returns its dispatches and the vector that holds z.
   */
  vcycle(b: number, x: number, y: number): { list: Compiled[]; z: number } {
    const list: Compiled[] = [];
    const z = this.cycle(0, [b, x, y], list);
    return { list, z };
  }

  /** Level l's cycle from x = 0; returns the vector (of the pair) holding the result. */
  private cycle(l: number, [b, x, y]: readonly [number, number, number], out: Compiled[]): number {
    const { smoothing, weight, coarseSweeps } = MULTIGRID_CYCLE;
    let [current, other] = [x, y];
    const sweep = (fromZero: boolean): void => {
      out.push(this.pass('mgSmooth', l, { levelB: b, levelX: current, levelY: other, fromZero: fromZero ? 1 : 0, weight })); // prettier-ignore
      [current, other] = [other, current];
    };
    const c = this.coarsenings[l];
    if (l === this.tailStart) {
      // The tail's levels in one workgroup; every level's result ends in its x (even sweeps).
      const tail = this.x.dispatch('mgTail', 'mgTail', 'single', this.bound, { ...this.overrides(l), levelB: b, levelX: x, levelY: y, tailTable: this.tailTable, tailLevels: this.levels.length - l, tailStride: MULTIGRID_TAIL.stride, smoothing, sweeps: coarseSweeps, weight }); // prettier-ignore
      // Gated on levelGroups' last entry (one workgroup while the solve runs), level 0's too: the
      // caller gates only per-particle passes, and a whole cycle run past convergence is not free.
      out.push({ ...tail, indirect: { buffer: this.levelGroups, offset: 16 * (this.levels.length - 1) } });
      return x;
    }
    if (!c) throw new Error(`multigrid: level ${l} has no coarsening above the tail (${this.tailStart})`);
    for (let k = 0; k < smoothing; k++) sweep(k === 0);
    const coarse = this.levels[l + 1]!;
    // The residual into the free iterate, then restricted: b_c = Pᵀ (b − A x).
    out.push(this.pass('mgResidual', l, { levelB: b, levelX: current, levelY: other }));
    out.push(this.pass('mgRestrict', l + 1, { ...this.overrides(l), levelY: other, coarseCount: coarse.nodeCount, restrictList: c.restrictList, coarseB: coarse.vectors[0] })); // prettier-ignore
    const correction = this.cycle(l + 1, coarse.vectors, out);
    out.push(this.pass('mgProlong', l, { levelX: current, prolongList: c.prolongList, coarseX: correction, correction: c.correction })); // prettier-ignore
    for (let k = 0; k < smoothing; k++) sweep(false);
    return current;
  }
}
