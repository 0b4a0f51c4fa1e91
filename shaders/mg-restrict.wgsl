// The coarse right-hand side, one thread per coarse node (CPU mirror: CpuMultigrid.cycle):
//   b_I = Σ_i p_iI r_i, Pᵀ of the fine level's residual r (mg-residual.wgsl) in its vector levelY.

override coarseCount: u32 = 0u;
override restrictList: u32 = 0u;  // in mgGraph: the weighted list (fine node i, p_iI) per coarse node
override coarseB: u32 = 0u;       // b_I in mgVectors

@compute @workgroup_size(workgroupSize)
fn mgRestrictMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let coarse = threadIndex(id, groups);
  if (coarse >= coarseCount) {
    return;
  }
  let sum = restrictAt(thisLevel(), restrictList, coarseCount, levelY, coarse);
  mgVectors[coarseB + coarse] = vec4<f32>(sum, 0.0);
}
