// Spring forces, one thread per spring (CPU mirror: src/cpu/passes.ts springForces).
// Force on endpoint a (b receives −f), Hooke plus damping along the spring:
//   d = x_b − x_a, l = |d|, n = d/l,  f = (k (l − L) + c (v_b − v_a)·n) n.
// A spring of zero length has no direction and exerts no force.

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read> springs: array<Spring>;
// State the forces are evaluated at (the step's state, or a Runge–Kutta stage), m and m/s.
@group(0) @binding(2) var<storage, read> evalPositions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> evalVelocities: array<vec4<f32>>;
// Output: force on each spring's first endpoint, N.
@group(0) @binding(4) var<storage, read_write> springForces: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn springForcesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let s = threadIndex(id, groups);
  if (s >= params.springCount) {
    return;
  }
  let spring = springs[s];
  let d = evalPositions[spring.particleB].xyz - evalPositions[spring.particleA].xyz;
  let l = length(d);
  var f = vec3<f32>(0.0);
  if (l > 0.0) {
    let closing = dot(evalVelocities[spring.particleB].xyz - evalVelocities[spring.particleA].xyz, d);
    f = ((spring.stiffness * (l - spring.restLength) + spring.damping * closing / l) / l) * d;
  }
  springForces[s] = vec4<f32>(f, 0.0);
}
