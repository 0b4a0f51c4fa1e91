/** The WGSL kernels, loaded as text (Vite `?raw`), with their shared files prepended, reflected once. */
import common from '../../../shaders/common.wgsl?raw';
import implicitCommon from '../../../shaders/implicit-common.wgsl?raw';
import springJacobians from '../../../shaders/spring-jacobians.wgsl?raw';
import implicitRhs from '../../../shaders/implicit-rhs.wgsl?raw';
import systemDiagonal from '../../../shaders/system-diagonal.wgsl?raw';
import systemBlocks from '../../../shaders/system-blocks.wgsl?raw';
import systemProduct from '../../../shaders/system-product.wgsl?raw';
import cgInit from '../../../shaders/cg-init.wgsl?raw';
import cgStep from '../../../shaders/cg-step.wgsl?raw';
import jacobiUpdate from '../../../shaders/jacobi-update.wgsl?raw';
import solverScalars from '../../../shaders/solver-scalars.wgsl?raw';
import copy from '../../../shaders/copy.wgsl?raw';
import programVectors from '../../../shaders/program-vectors.wgsl?raw';
import programForces from '../../../shaders/program-forces.wgsl?raw';
import programGather from '../../../shaders/program-gather.wgsl?raw';
import programCombine from '../../../shaders/program-combine.wgsl?raw';
import programNorm from '../../../shaders/program-norm.wgsl?raw';
import programDots from '../../../shaders/program-dots.wgsl?raw';
import mgCommon from '../../../shaders/mg-common.wgsl?raw';
import mgEdges from '../../../shaders/mg-edges.wgsl?raw';
import mgNodes from '../../../shaders/mg-nodes.wgsl?raw';
import mgSmooth from '../../../shaders/mg-smooth.wgsl?raw';
import mgResidual from '../../../shaders/mg-residual.wgsl?raw';
import mgRestrict from '../../../shaders/mg-restrict.wgsl?raw';
import mgProlong from '../../../shaders/mg-prolong.wgsl?raw';
import mgTail from '../../../shaders/mg-tail.wgsl?raw';
import mgProduct from '../../../shaders/mg-product.wgsl?raw';
import programControl from '../../../shaders/program-control.wgsl?raw';
import colliders from '../../../shaders/colliders.wgsl?raw';
import contactProjectOwn from '../../../shaders/contact-project.wgsl?raw';
import historyRestart from '../../../shaders/history-restart.wgsl?raw';
import contactDetect from '../../../shaders/contact-detect.wgsl?raw';
import contactFilter from '../../../shaders/contact-filter.wgsl?raw';
import contactRespond from '../../../shaders/contact-respond.wgsl?raw';
import colliderMove from '../../../shaders/collider-move.wgsl?raw';
import aeroTriangles from '../../../shaders/aero-triangles.wgsl?raw';
import aeroGather from '../../../shaders/aero-gather.wgsl?raw';
import windClock from '../../../shaders/wind-clock.wgsl?raw';
import strainCorrection from '../../../shaders/strain-correction.wgsl?raw';
import fusedCommon from '../../../shaders/fused-common.wgsl?raw';
import fusedOps from '../../../shaders/fused-ops.wgsl?raw';
import fusedSolve from '../../../shaders/fused-solve.wgsl?raw';
import fusedController from '../../../shaders/fused-controller.wgsl?raw';
import fusedMain from '../../../shaders/fused-adaptive.wgsl?raw';
import fusedInterpreter from '../../../shaders/fused-interpreter.wgsl?raw';
import bendingCommon from '../../../shaders/bending-common.wgsl?raw';
import bendingHinges from '../../../shaders/bending-hinges.wgsl?raw';
import bendingGather from '../../../shaders/bending-gather.wgsl?raw';
import bendingTerms from '../../../shaders/bending-terms.wgsl?raw';
import bendingProduct from '../../../shaders/bending-product.wgsl?raw';
import bendingDiagonal from '../../../shaders/bending-diagonal.wgsl?raw';
import selfContactCommon from '../../../shaders/self-contact-common.wgsl?raw';
import selfPairCommon from '../../../shaders/self-pair-common.wgsl?raw';
import selfPairMean from '../../../shaders/self-pair-mean.wgsl?raw';
import selfPairReach from '../../../shaders/self-pair-reach.wgsl?raw';
import selfPairStates from '../../../shaders/self-pair-states.wgsl?raw';
import selfPairTerms from '../../../shaders/self-pair-terms.wgsl?raw';
import selfPairGather from '../../../shaders/self-pair-gather.wgsl?raw';
import selfPairProduct from '../../../shaders/self-pair-product.wgsl?raw';
import selfPairDiagonal from '../../../shaders/self-pair-diagonal.wgsl?raw';
import selfFailGate from '../../../shaders/self-fail-gate.wgsl?raw';
import selfFailPlanes from '../../../shaders/self-fail-planes.wgsl?raw';
import selfFailTruncate from '../../../shaders/self-fail-truncate.wgsl?raw';
import selfFailApplyOwn from '../../../shaders/self-fail-apply.wgsl?raw';
import { reflectKernel, type KernelLayout } from './layout.ts';

const EXPLICIT = {
  programControl,
  copy,
};
const IMPLICIT = {
  springJacobians,
  implicitRhs,
  systemDiagonal,
  systemBlocks,
  systemProduct,
  cgInit,
  cgStep,
  jacobiUpdate,
  solverScalars,
  programDots,
};

const MULTIGRID = { mgEdges, mgNodes, mgSmooth, mgResidual, mgRestrict, mgProlong, mgTail, mgProduct };

/**
 * Program kernels: program-vectors.wgsl prepended (fusedAdaptive: a whole batch of adaptive steps,
 * the program interpreted; {@link fusedProgramKernel}: the same with the blocks of one program).
 */
const fusedShared = [fusedCommon, fusedOps, fusedSolve, fusedController, fusedMain].join('\n');
const fusedAdaptive = `${fusedShared}\n${fusedInterpreter}`;
const PROGRAM = {
  programForces,
  programGather,
  programCombine,
  programNorm,
  strainCorrection,
  fusedAdaptive,
};

/** The two ops that restart a multistep scheme's velocity history (history-restart.wgsl). */
const contactProject = `${historyRestart}\n${contactProjectOwn}`;
const selfFailApply = `${historyRestart}\n${selfFailApplyOwn}`;

/** Contacts with colliders: colliders.wgsl prepended. */
const CONTACT = { contactProject, contactDetect, contactFilter, contactRespond, colliderMove };

/** Wind: program-vectors.wgsl prepended (wind-clock does not use it). */
const AERO = { aeroTriangles, aeroGather, windClock };

/** Dihedral bending: bending-common.wgsl prepended (after implicit-common.wgsl for the solver's). */
const BENDING = { bendingHinges, bendingGather };
const BENDING_IMPLICIT = { bendingTerms, bendingProduct, bendingDiagonal };

/** Self-collision's dynamics: implicit-common, self-contact-common and self-pair-common.wgsl prepended. */
const SELF_PAIR = { selfPairMean, selfPairReach, selfPairStates, selfPairTerms, selfPairGather, selfPairProduct, selfPairDiagonal, selfFailGate, selfFailPlanes, selfFailTruncate, selfFailApply }; // prettier-ignore

export type KernelName =
  | keyof typeof EXPLICIT
  | keyof typeof IMPLICIT
  | keyof typeof PROGRAM
  | keyof typeof MULTIGRID
  | keyof typeof CONTACT
  | keyof typeof AERO
  | keyof typeof BENDING
  | keyof typeof BENDING_IMPLICIT
  | keyof typeof SELF_PAIR;

let reflected: Record<KernelName, KernelLayout> | undefined;

/**
 * Every kernel with common.wgsl prepended, program-vectors.wgsl (every kernel that touches the
 * program's vectors), and implicit-common.wgsl (the implicit kernels).
 */
export function kernels(): Record<KernelName, KernelLayout> {
  reflected ??= Object.fromEntries([
    ...Object.entries(EXPLICIT).map(([name, source]) => [name, reflectKernel(`${common}\n${source}`)]),
    ...Object.entries(IMPLICIT).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${implicitCommon}\n${source}`),
    ]),
    ...Object.entries(MULTIGRID).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${implicitCommon}\n${mgCommon}\n${source}`),
    ]),
    ...Object.entries({ ...PROGRAM, ...AERO }).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${source}`),
    ]),
    ...Object.entries(BENDING).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${bendingCommon}\n${source}`),
    ]),
    ...Object.entries(BENDING_IMPLICIT).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${implicitCommon}\n${bendingCommon}\n${source}`),
    ]),
    ...Object.entries(SELF_PAIR).map(([name, source]) => [
      name,
      reflectKernel(
        `${common}\n${programVectors}\n${implicitCommon}\n${selfContactCommon}\n${selfPairCommon}\n${source}`,
      ),
    ]),
    ...Object.entries(CONTACT).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${colliders}\n${source}`),
    ]),
  ]) as Record<KernelName, KernelLayout>;
  return reflected;
}

const fusedPrograms = new Map<string, KernelLayout>();

/**
 * The fused adaptive kernel with `blocks` (WGSL: runFirst, runAttempt and runAccept, generated by
 * fused-program.ts) in place of the interpreter, reflected once per distinct `blocks`.
 */
export function fusedProgramKernel(blocks: string): KernelLayout {
  let kernel = fusedPrograms.get(blocks);
  if (!kernel) {
    kernel = reflectKernel(`${common}\n${programVectors}\n${fusedShared}\n${blocks}`);
    fusedPrograms.set(blocks, kernel);
  }
  return kernel;
}
