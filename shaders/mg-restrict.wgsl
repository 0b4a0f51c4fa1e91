// The coarse right-hand side, one thread per coarse node (CPU mirror: CpuMultigrid.cycle):
//   b_I = Σ_{i ∈ I} (b − A x)_i  on the fine level (this level's overrides), Pᵀ of the residual.

override coarseCount: u32 = 0u;
override childList: u32 = 0u;  // in mgGraph: coarseCount + 1 offsets, then fine node indices
override coarseB: u32 = 0u;    // b_I in mgVectors

@compute @workgroup_size(workgroupSize)
fn mgRestrictMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let coarse = threadIndex(id, groups);
  if (coarse >= coarseCount) {
    return;
  }
  var sum = vec3<f32>(0.0);
  let children = childList + coarseCount + 1u;
  for (var k = mgGraph[childList + coarse]; k < mgGraph[childList + coarse + 1u]; k++) {
    let i = mgGraph[children + k];
    sum += levelLoad(levelB, i) - levelProduct(levelX, i);
  }
  mgVectors[coarseB + coarse] = vec4<f32>(sum, 0.0);
}
