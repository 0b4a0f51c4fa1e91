// Self-collision, the per-pair terms σ g_j at the states of the last `jacobians` (CPU mirror:
// RankOneTerms.rhsTerms and productTerms, src/backends/cpu/rank-one-terms.ts; as
// bending-terms.wgsl), K = κ g gᵀ and B = β g gᵀ:
//   rhs (fromSolver = 0): σ = s_f F − κ (γ_v g·v + γ_a g·a) − β (β_v g·v + β_a g·a);
//   product (fromSolver = 1, v = a = the input p): σ = (γ κ + β β_e) g·p.
// self-pair-gather.wgsl and self-pair-product.wgsl sum the terms per particle.

struct SelfTermsOp {
  forceScale: f32,             // s_f
  velocityStiffness: f32,      // γ_v
  accelerationStiffness: f32,  // γ_a
  velocityDamping: f32,        // β_v
  accelerationDamping: f32,    // β_a
}

override fromSolver: u32 = 0u;

@group(0) @binding(6) var<uniform> op: SelfTermsOp;       // the rhs's coefficients (fromSolver = 0)
@group(0) @binding(7) var<uniform> solver: SolverParams;  // the solve's β, γ (fromSolver = 1)
@group(0) @binding(8) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(9) var<storage, read> pairStates: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> pairTerms: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn selfPairTermsMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let count = pairCount();
  for (var e = threadIndex(id, groups); e < count; e += pairStride(groups)) {
    let ids = pairParticles(e);
    var dv = 0.0;
    var da = 0.0;
    for (var c = 0u; c < 4u; c++) {
      let g = pairStates[4u * e + c].xyz;
      dv += dot(g, loadVector(vRef, ids[c]));
      da += dot(g, loadVector(aRef, ids[c]));
    }
    let force = pairStates[4u * e].w;
    let kappa = pairStates[4u * e + 1u].w;
    let beta = pairStates[4u * e + 2u].w;
    var sigma = 0.0;
    if (fromSolver == 1u) {
      sigma = (solver.stiffnessCoefficient * kappa + solver.dampingCoefficient * beta) * dv;
    } else {
      sigma = op.forceScale * force - kappa * (op.velocityStiffness * dv + op.accelerationStiffness * da) - beta * (op.velocityDamping * dv + op.accelerationDamping * da);
    }
    for (var c = 0u; c < 4u; c++) {
      pairTerms[4u * e + c] = vec4<f32>(sigma * pairStates[4u * e + c].xyz, 0.0);
    }
  }
}
