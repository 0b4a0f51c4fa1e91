// Reference copy kernel for bandwidth: destination[i] = source[i], one vec4<f32> per thread.
// Its bytes per second (16 read + 16 written per element) are the adapter's practical memory
// bandwidth, against which the solver kernels' achieved bandwidth is stated.

@group(0) @binding(0) var<uniform> params: SimParams;  // particleCount = elements to copy
@group(0) @binding(1) var<storage, read> source: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> destination: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn copyMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  destination[i] = source[i];
}
