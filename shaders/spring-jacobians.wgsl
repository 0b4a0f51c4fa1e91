// Spring forces and Jacobian blocks at the evaluation point, one thread per spring
// (CPU mirror: src/cpu/implicit-passes.ts springStates). With d = x_b − x_a, l = |d|, n = d/l:
//   F = (k (l − L) + c (v_b − v_a)·n) n                    force on a
//   J = k (n nᵀ + g (I − n nᵀ)),  g = 1 − L/l              K block (K = −∂f/∂x)
// clamped: g ← max(g, 0) for compressed springs (Choi & Ko 2002), keeping K positive semi-definite.

// xRef, vRef (program-vectors.wgsl): the state the springs are evaluated at.

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> springs: array<Spring>;
@group(0) @binding(6) var<storage, read_write> springStates: array<SpringState>;

@compute @workgroup_size(workgroupSize)
fn springJacobiansMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let s = threadIndex(id, groups);
  if (s >= params.springCount) {
    return;
  }
  let spring = springs[s];
  let d = loadVector(xRef, spring.particleB) - loadVector(xRef, spring.particleA);
  let l = length(d);
  var n = vec3<f32>(0.0);
  var magnitude = 0.0;
  var g = 0.0;
  if (l > 0.0) {
    n = d / l;
    let closing = dot(loadVector(vRef, spring.particleB) - loadVector(vRef, spring.particleA), n);
    magnitude = spring.stiffness * (l - spring.restLength) + spring.damping * closing;
    g = 1.0 - spring.restLength / l;
    if (solver.exactJacobian == 0u) {
      g = max(g, 0.0);
    }
  }
  springStates[s] = SpringState(
    vec4<f32>(n, magnitude),
    vec4<f32>(spring.stiffness * g, spring.stiffness * (1.0 - g), spring.damping, 0.0),
  );
}
