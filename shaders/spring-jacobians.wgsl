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
  springStates[s] = springStateAt(springs[s], xRef, vRef, solver.exactJacobian == 1u);
}
