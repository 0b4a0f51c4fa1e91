// `eval`, pass 1 of 2: spring forces, one thread per spring (CPU mirror: src/backends/cpu/passes.ts
// springForces). Force on endpoint a (b receives −f), Hooke plus damping along the spring:
//   d = x_b − x_a, l = |d|, n = d/l,  f = (k (l − L) + c (v_b − v_a)·n) n;  no force when l = 0.

@group(0) @binding(5) var<storage, read> springs: array<Spring>;
// Output: force on each spring's first endpoint, N.
@group(0) @binding(6) var<storage, read_write> springForces: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn programForcesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let s = threadIndex(id, groups);
  if (s >= params.springCount) {
    return;
  }
  let spring = springs[s];
  let d = loadVector(xRef, spring.particleB) - loadVector(xRef, spring.particleA);
  let l = length(d);
  var f = vec3<f32>(0.0);
  if (l > 0.0) {
    let closing = dot(loadVector(vRef, spring.particleB) - loadVector(vRef, spring.particleA), d);
    f = ((spring.stiffness * (l - spring.restLength) + spring.damping * closing / l) / l) * d;
  }
  springForces[s] = vec4<f32>(f, 0.0);
}
