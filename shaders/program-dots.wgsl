// `measure`: per-workgroup partial sums of up to four squared norms (‖u₀‖², ‖u₁‖², ‖u₂‖², ‖u₃‖²)
// over every particle (CPU mirror: src/backends/cpu/implicit-ops.ts, `measure`); the scalar
// kernel (solver-scalars.wgsl, MEASURE) adds the partials in a fixed order.

override count: u32 = 1u;  // vectors measured (1–4)
override u0: u32 = 0u;     // their references
override u1: u32 = 0u;
override u2: u32 = 0u;
override u3: u32 = 0u;

@group(0) @binding(4) var<storage, read_write> partials: array<vec4<f32>>;

fn squared(k: u32, vector: u32, i: u32) -> f32 {
  if (k >= count) {
    return 0.0;
  }
  let u = loadVector(vector, i);
  return dot(u, u);
}

@compute @workgroup_size(workgroupSize)
fn programDotsMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  var value = vec4<f32>(0.0);
  if (i < params.particleCount) {
    value = vec4<f32>(squared(0u, u0, i), squared(1u, u1, i), squared(2u, u2, i), squared(3u, u3, i));
  }
  let total = workgroupSum(local, value);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
