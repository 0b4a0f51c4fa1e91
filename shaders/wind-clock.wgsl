// The wind's clock, one thread (CPU mirror: CpuAero.tick): one more step taken. The turbulence's
// time is steps × h (aero-triangles.wgsl), an integer count so that no rounding accumulates.

@group(0) @binding(4) var<storage, read_write> windClock: array<u32>;  // [0]: steps taken

@compute @workgroup_size(workgroupSize)
fn windClockMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  if (threadIndex(id, groups) == 0u) {
    windClock[0] += 1u;
  }
}
