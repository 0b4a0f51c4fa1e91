// The blocks of one solve's A = α M + β B + γ K, one thread per spring, written once per solve at
// each of the spring's two incidence entries (CPU mirror: src/cpu/implicit-passes.ts
// systemProduct): β c n nᵀ + γ J_s = a I + b n nᵀ with a = γ k g and b = γ k (1 − g) + β c, so
// that system-product.wgsl reads per incident spring 20 contiguous bytes (and u_j) instead of
// the 32-byte spring state at the spring's index.

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> springStates: array<SpringState>;
// Positions of spring s's two entries in the incidence list (first endpoint's, second's).
@group(0) @binding(6) var<storage, read> springEntries: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> entryBlocks: array<vec4<f32>>;  // xyz: n; w: b
@group(0) @binding(8) var<storage, read_write> entryStiffness: array<f32>;     // a

@compute @workgroup_size(workgroupSize)
fn systemBlocksMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let s = threadIndex(id, groups);
  if (s >= params.springCount) {
    return;
  }
  let state = springStates[s];
  let k = state.coefficients;
  let along = solver.stiffnessCoefficient * k.y + solver.dampingCoefficient * k.z;
  let isotropic = solver.stiffnessCoefficient * k.x;
  let first = springEntries[s].x;
  let second = springEntries[s].y;
  entryBlocks[first] = vec4<f32>(state.direction.xyz, along);
  entryBlocks[second] = vec4<f32>(state.direction.xyz, along);
  entryStiffness[first] = isotropic;
  entryStiffness[second] = isotropic;
}
