// Bending, the per-hinge terms σ_h ∇_jθ at the hinge states of the last `jacobians` (CPU mirror:
// CpuBending.rhsTerms and productTerms, src/backends/cpu/bending.ts), K_h = 2kc ∇θ∇θᵀ (its
// Gauss–Newton part) and B_h = dc ∇θ∇θᵀ:
//   rhs (fromSolver = 0): σ = s_f F − 2kc (γ_v ∇θ·v + γ_a ∇θ·a) − dc (β_v ∇θ·v + β_a ∇θ·a),
//     implicit-rhs.wgsl's linear form for the hinge (coefficients as its RhsCoefficients);
//   product (fromSolver = 1, v = a = the input p): σ = (γ 2kc + β dc) ∇θ·p, A = α M + β B + γ K.
// bending-gather.wgsl and bending-product.wgsl sum the terms per particle.

struct BendingTermsOp {
  forceScale: f32,             // s_f
  velocityStiffness: f32,      // γ_v
  accelerationStiffness: f32,  // γ_a
  velocityDamping: f32,        // β_v
  accelerationDamping: f32,    // β_a
}

override fromSolver: u32 = 0u;

@group(0) @binding(4) var<uniform> op: BendingTermsOp;     // the rhs's coefficients (fromSolver = 0)
@group(0) @binding(5) var<uniform> solver: SolverParams;   // the solve's β, γ (fromSolver = 1)
@group(0) @binding(6) var<storage, read> hinges: array<Hinge>;
@group(0) @binding(7) var<storage, read> hingeStates: array<vec4<f32>>;   // as bending-hinges.wgsl wrote them
@group(0) @binding(8) var<storage, read_write> hingeTerms: array<vec4<f32>>;  // σ ∇_jθ, N

@compute @workgroup_size(workgroupSize)
fn bendingTermsMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  for (var h = threadIndex(id, groups); h < hingeCount; h += hingeStride(groups)) {
    let hinge = hinges[h];
    var dv = 0.0;
    var da = 0.0;
    for (var c = 0u; c < 4u; c++) {
      let g = hingeStates[4u * h + c].xyz;
      dv += dot(g, loadVector(vRef, hinge.particles[c]));
      da += dot(g, loadVector(aRef, hinge.particles[c]));
    }
    var sigma = 0.0;
    if (fromSolver == 1u) {
      sigma = (solver.stiffnessCoefficient * hinge.stiffness + solver.dampingCoefficient * hinge.damping) * dv;
    } else {
      sigma = op.forceScale * hingeStates[4u * h].w - hinge.stiffness * (op.velocityStiffness * dv + op.accelerationStiffness * da) - hinge.damping * (op.velocityDamping * dv + op.accelerationDamping * da);
    }
    for (var c = 0u; c < 4u; c++) {
      hingeTerms[4u * h + c] = vec4<f32>(sigma * hingeStates[4u * h + c].xyz, 0.0);
    }
  }
}
