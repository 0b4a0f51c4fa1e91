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
  smoothNode(thisLevel(), levelB, levelX, levelY, fromZero == 1u, weight, i);
}
