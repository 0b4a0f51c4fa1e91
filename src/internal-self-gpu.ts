/** Self-collision internals of the WebGPU path, for tests (re-exported by src/internal.ts). */
export {};
