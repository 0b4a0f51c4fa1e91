// The coarse-grid correction, one thread per fine node (CPU mirror: CpuMultigrid.cycle):
//   x_i += θ Σ_I p_iI x_I  (θ the coarsening's correction scale; fixed particles have no terms).

override prolongList: u32 = 0u;  // in mgGraph: the weighted list (coarse node I, p_iI) per fine node
override coarseX: u32 = 0u;      // x_c in mgVectors
override correction: f32 = 1.0;  // θ

@compute @workgroup_size(workgroupSize)
fn mgProlongMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= nodeCount) {
    return;
  }
  levelStore(levelX, i, levelLoad(levelX, i) + correction * prolongAt(prolongList, nodeCount, coarseX, i));
}
