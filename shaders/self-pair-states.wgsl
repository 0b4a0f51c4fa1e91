// Self-collision, the pairs' states at (x, v) (CPU mirror: CpuSelfContact.states), one thread per
// pair on the per-particle grid: the pair's weights w and unit normal n (self-pair-common.wgsl),
// g_j = w_j n, u_n = g · v, and with the pair active
//   F = k max(r − d, 0) − c u_n,   κ = k,   β = c,
// else g = 0 and F = κ = β = 0. Active (`implicit` 1, a `jacobians`): the predicted gap
// d + h min(u_n, 0) < r; (`implicit` 0, an `eval`): d < r. With `writeTerms` the terms F g_j that
// self-pair-gather.wgsl sums into the accelerations.

override implicit: u32 = 0u;
override writeTerms: u32 = 0u;

@group(0) @binding(6) var<uniform> selfOp: SelfPairOp;
@group(0) @binding(7) var<storage, read> selfPairs: array<u32>;
// Per pair and corner: xyz g_j; w: corner 0 F (N), 1 κ (N/m), 2 β (N·s/m), 3 1 when active.
@group(0) @binding(8) var<storage, read_write> pairStates: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> pairTerms: array<vec4<f32>>;  // σ g_j, N

@compute @workgroup_size(workgroupSize)
fn selfPairStatesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let count = pairCount();
  for (var e = threadIndex(id, groups); e < count; e += pairStride(groups)) {
    pairAt(e);
  }
}

fn pairAt(e: u32) {
  let geometry = pairGeometry(xRef, e, false);
  let ids = pairParticles(e);
  var un = 0.0;
  for (var c = 0u; c < 4u; c++) {
    un += geometry.w[c] * dot(geometry.n, loadVector(vRef, ids[c]));
  }
  let r = selfOp.thickness;
  var on = geometry.d < r;
  if (implicit == 1u) {
    on = geometry.d + selfOp.h * min(un, 0.0) < r;
  }
  let force = select(0.0, selfOp.stiffness * max(r - geometry.d, 0.0) - selfOp.damping * un, on);
  let scalars = select(vec4<f32>(0.0), vec4<f32>(force, selfOp.stiffness, selfOp.damping, 1.0), on);
  for (var c = 0u; c < 4u; c++) {
    let g = select(vec3<f32>(0.0), geometry.w[c] * geometry.n, on);
    pairStates[4u * e + c] = vec4<f32>(g, scalars[c]);
    if (writeTerms == 1u) {
      pairTerms[4u * e + c] = vec4<f32>(force * g, 0.0);
    }
  }
}
