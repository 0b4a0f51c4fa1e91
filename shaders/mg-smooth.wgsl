// One weighted block-Jacobi sweep on a level, one thread per node (CPU mirror: CpuMultigrid.smooth):
//   y = x + ω D⁻¹ (b − A x),  or from x = 0 (fromZero): y = ω D⁻¹ b.
// x and y are two buffers (the host alternates them), so every thread reads the old iterate.

override fromZero: u32 = 0u;
override weight: f32 = 0.75;  // ω

@compute @workgroup_size(workgroupSize)
fn mgSmoothMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= nodeCount) {
    return;
  }
  var x = vec3<f32>(0.0);
  var r = levelLoad(levelB, i);
  if (fromZero == 0u) {
    x = levelLoad(levelX, i);
    r -= levelProduct(levelX, i);
  }
  let at = 4u * (nodeBase + i);
  levelStore(levelY, i, x + weight * blockProduct(mgNodes[at + 2u], mgNodes[at + 3u], r));
}
