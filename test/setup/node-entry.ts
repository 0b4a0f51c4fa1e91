/**
 * Every test file runs in Node, where `import 'weft-sim'` resolves to the Node entry: load it, so
 * that tests importing src/index.ts or src/internal.ts find WebGPU adapters through Dawn.
 */
import '../../src/node.ts';
