/** Self-collision's CPU dynamics, for tests (re-exported by src/internal.ts). */
export { CpuSelfContact } from './backends/cpu/self-contact.ts';
export { withSelfContact, SELF_START } from './integrators/self-contact-programs.ts';
