/** The exact self-intersection check, now in src/model/self-intersection.ts (the benchmarks use it too). */
export { selfIntersections, trianglesIntersect } from '../../src/internal.ts';
