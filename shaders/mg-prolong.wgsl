// The coarse-grid correction, one thread per fine node (CPU mirror: CpuMultigrid.cycle):
//   x_i += θ x_c[aggregate(i)]  (θ the over-correction; fixed particles belong to no aggregate).

override aggregates: u32 = 0u;  // in mgGraph: the coarse node of each fine node, 0xffffffff: none
override coarseX: u32 = 0u;     // x_c in mgVectors
override overCorrection: f32 = 1.8;

@compute @workgroup_size(workgroupSize)
fn mgProlongMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= nodeCount) {
    return;
  }
  let coarse = mgGraph[aggregates + i];
  if (coarse == 0xffffffffu) {
    return;
  }
  levelStore(levelX, i, levelLoad(levelX, i) + overCorrection * mgVectors[coarseX + coarse].xyz);
}
