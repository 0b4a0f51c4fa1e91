// Self-collision's part of each particle's diagonal block of A = α M + β B + γ K (CPU mirror:
// RankOneTerms.addDiagonal, src/backends/cpu/rank-one-terms.ts; as bending-diagonal.wgsl), one
// thread per particle: Σ_{pairs of i} (γ κ + β β_e) g_i g_iᵀ, written (or with `accumulate` added
// to bending's, which bending-diagonal.wgsl wrote first) for system-diagonal.wgsl and mg-nodes.wgsl.

override accumulate: u32 = 0u;

@group(0) @binding(6) var<uniform> solver: SolverParams;
@group(0) @binding(7) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(8) var<storage, read> pairStates: array<vec4<f32>>;
// Two vec4 per particle: (xx, yy, zz, 0), (xy, xz, yz, 0).
@group(0) @binding(9) var<storage, read_write> bendingDiagonal: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn selfPairDiagonalMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  var d = vec3<f32>(0.0);
  var o = vec3<f32>(0.0);
  if (accumulate == 1u) {
    d = bendingDiagonal[2u * i].xyz;
    o = bendingDiagonal[2u * i + 1u].xyz;
  }
  for (var k = selfPairs[incidenceAt + i]; k < selfPairs[incidenceAt + i + 1u]; k++) {
    let entry = selfPairs[entriesAt + k];
    let pair = 4u * (entry >> 2u);
    let w = solver.stiffnessCoefficient * pairStates[pair + 1u].w + solver.dampingCoefficient * pairStates[pair + 2u].w;
    let g = pairStates[entry].xyz;
    d += w * g * g;
    o += w * vec3<f32>(g.x * g.y, g.x * g.z, g.y * g.z);
  }
  bendingDiagonal[2u * i] = vec4<f32>(d, 0.0);
  bendingDiagonal[2u * i + 1u] = vec4<f32>(o, 0.0);
}
