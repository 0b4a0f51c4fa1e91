/** Self-collision internals of the CPU path, for tests (re-exported by src/internal.ts). */
export { resolveSelfCollision, triangleEdges, MAX_THICKNESS_RATIO } from './model/self-collision.ts';
export {
  vertexTriangleClosest,
  edgeEdgeClosest,
  selfReach,
  EDGE_PARALLEL_RATIO,
  EDGE_POINT_RATIO,
} from './model/self-contact-geometry.ts';
export {
  detectSelfPairs,
  selfCellHash,
  SELF_QUERY_CELLS,
  type SelfPairList,
} from './backends/cpu/self-contact-detect.ts';
