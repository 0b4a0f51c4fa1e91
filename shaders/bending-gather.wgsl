// Bending on the particles, one thread per particle (CPU mirror: CpuBending.gather,
// src/backends/cpu/bending.ts): each free particle sums its hinges' terms over the CSR list (in
// list order: no atomics, the same sum every run) and adds the sum — divided by its mass with
// perMass = 1, an acceleration after an `eval` — to `to`.

override toRef: u32 = 2u;    // the vector the sum is added to
override perMass: u32 = 1u;  // 1: divide by the mass

@group(0) @binding(4) var<storage, read> particleInvMass: array<f32>;  // 1/kg; 0: fixed
// CSR: offsets [n + 1], then the entries 4 h + corner from n + 1 on.
@group(0) @binding(5) var<storage, read> hingeIncidence: array<u32>;
@group(0) @binding(6) var<storage, read> hingeTerms: array<vec4<f32>>;  // σ ∇_jθ, N

@compute @workgroup_size(workgroupSize)
fn bendingGatherMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || particleInvMass[i] == 0.0) {
    return;
  }
  var f = vec3<f32>(0.0);
  let entries = params.particleCount + 1u;
  for (var e = hingeIncidence[i]; e < hingeIncidence[i + 1u]; e++) {
    f += hingeTerms[hingeIncidence[entries + e]].xyz;
  }
  storeVector(toRef, i, loadVector(toRef, i) + select(1.0, particleInvMass[i], perMass == 1u) * f);
}
