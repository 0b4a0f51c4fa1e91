// Shared by every Weft kernel: prepended to each kernel file before compilation.
// Vectors are vec4<f32> per particle (xyz used, w = 1 for positions so a render pipeline can
// use the buffer as-is, 0 otherwise): vec3 in a storage array would have a 16-byte stride anyway.

// Constants of one simulation, written once.
struct SimParams {
  particleCount: u32,  // n
  springCount: u32,    // s
  gravity: vec3<f32>,  // g, m/s²
  rayleighMass: f32,   // r_m inside a(x, v) (0 when the scheme treats it itself), 1/s
}

// One spring: its endpoints and material.
struct Spring {
  particleA: u32,   // first endpoint; receives +f
  particleB: u32,   // second endpoint; receives −f
  restLength: f32,  // L, m
  stiffness: f32,   // k, N/m
  damping: f32,     // c, N·s/m, along the spring
}

// u = 2⁻²⁴, float32's unit round-off (the Newton loops' round-off floor, program.ts).
const F32_UNIT_ROUNDOFF: f32 = 5.9604645e-8;

// Threads per workgroup, set from the pipeline's `constants`.
override workgroupSize: u32 = 64;

// Linear thread index over a 1-D grid of workgroups, or a 2-D grid when the count of groups
// exceeds maxComputeWorkgroupsPerDimension.
fn threadIndex(id: vec3<u32>, groups: vec3<u32>) -> u32 {
  return id.x + id.y * groups.x * workgroupSize;
}
