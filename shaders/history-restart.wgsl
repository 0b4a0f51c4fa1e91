// A multistep scheme's velocity history restarted where an op changed a particle's velocity (a
// collider's projection, the self-collision fail-safe; src/integrators/contact-programs.ts,
// self-contact-programs.ts): the new v goes to the first restartCount of restart0–2 (arena
// vectors, program-vectors.wgsl). Prepended to contact-project.wgsl and self-fail-apply.wgsl.

override restartCount: u32 = 0u;
override restart0: u32 = 0u;
override restart1: u32 = 0u;
override restart2: u32 = 0u;

fn restartHistory(i: u32, v: vec3<f32>) {
  if (restartCount > 0u) {
    storeVector(restart0, i, v);
  }
  if (restartCount > 1u) {
    storeVector(restart1, i, v);
  }
  if (restartCount > 2u) {
    storeVector(restart2, i, v);
  }
}
