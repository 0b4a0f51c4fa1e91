/**
 * Weft's internals for Node (dist/weft-internal.js, for the benchmarks and scripts): src/internal.ts
 * with WebGPU from Dawn, as the Node entry (src/node.ts) has it.
 */
import './node.ts';

export * from './internal.ts';
