// Per-workgroup partial sums of up to four dot products (u₀·w₀, …, u₃·w₃) over every particle:
// `measure`'s squared norms (w = u; CPU mirror: src/backends/cpu/implicit-ops.ts) and the r·z of
// multigrid-preconditioned CG. The scalar kernel (solver-scalars.wgsl) adds the partials in a
// fixed order.

override count: u32 = 1u;  // vectors measured (1–4)
override u0: u32 = 0u;     // their references
override u1: u32 = 0u;
override u2: u32 = 0u;
override u3: u32 = 0u;
override w0: u32 = 0u;     // … and the vectors they are dotted with
override w1: u32 = 0u;
override w2: u32 = 0u;
override w3: u32 = 0u;

@group(0) @binding(4) var<storage, read_write> partials: array<vec4<f32>>;

fn product(k: u32, u: u32, w: u32, i: u32) -> f32 {
  if (k >= count) {
    return 0.0;
  }
  return dot(loadVector(u, i), loadVector(w, i));
}

@compute @workgroup_size(groupThreads)
fn programDotsMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var value = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount) {
      value += vec4<f32>(product(0u, u0, w0, i), product(1u, u1, w1, i), product(2u, u2, w2, i), product(3u, u3, w3, i));
    }
  }
  let total = workgroupSum(local, value);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
