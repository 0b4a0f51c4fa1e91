// The fine level's residual before restriction, one thread per node (CPU mirror:
// CpuMultigrid.cycle): y = b − A x, kept so that the restriction, which reads each fine node for
// every coarse node its smoothed prolongation reaches, computes no product twice.

@compute @workgroup_size(workgroupSize)
fn mgResidualMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= nodeCount) {
    return;
  }
  levelStore(levelY, i, levelLoad(levelB, i) - levelProduct(levelX, i));
}
