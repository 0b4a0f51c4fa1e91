// One iteration of Chronopoulos–Gear CG (Chronopoulos & Gear 1989, "s-step iterative methods for
// symmetric linear systems"; Ghysels & Vanroose 2014, Parallel Computing 40, Alg. 2), the vector
// updates with α_i, β_i from SolverControl:
//   p_i = u_i + β_i p_{i−1},  s_i = w_i + β_i s_{i−1},  x_{i+1} = x_i + α_i p_i,
//   r_{i+1} = r_i − α_i s_i,  u_{i+1} = P⁻¹ r_{i+1}  (s_i = A p_i, w_i = A u_i).
// Its one reduction per iteration (γ = r·u, δ = w·u, r·r) comes with the next product
// (system-product.wgsl, mg-product.wgsl), so an iteration is this pass, the product and the
// scalar step: three dispatches (plus the V-cycle's when P⁻¹ is multigrid).
// The CPU reference solves with standard PCG (src/backends/cpu/linear-solver.ts): the same
// iterates in exact arithmetic.

override solutionRef: u32 = 0u;   // x
override residualRef: u32 = 0u;   // r
override directionRef: u32 = 0u;  // p
override stepRef: u32 = 0u;       // s = A p
override productRef: u32 = 0u;    // w = A u
override preconditionedRef: u32 = 0u;  // u = P⁻¹ r
override givenU: u32 = 0u;        // 1: u is computed after this pass (a multigrid V-cycle of r)
override constrained: u32 = 0u;   // 1: u = S P⁻¹ r, filtered by the contacts

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> control: SolverControl;
@group(0) @binding(6) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // P⁻¹ blocks
@group(0) @binding(7) var<storage, read> particleMass: array<f32>;            // 0: fixed
@group(0) @binding(8) var<storage, read> contactNormals: array<vec4<f32>>;     // n, w = 1: constrained

@compute @workgroup_size(workgroupSize)
fn cgStepMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let p = loadVector(preconditionedRef, i) + control.beta * loadVector(directionRef, i);
  let s = loadVector(productRef, i) + control.beta * loadVector(stepRef, i);
  storeVector(directionRef, i, p);
  storeVector(stepRef, i, s);
  storeVector(solutionRef, i, loadVector(solutionRef, i) + control.alpha * p);
  let r = loadVector(residualRef, i) - control.alpha * s;
  storeVector(residualRef, i, r);
  if (givenU == 0u) {
    var u = select(r, vec3<f32>(0.0), particleMass[i] == 0.0);
    if (solver.preconditioner != 0u) {
      u = symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
    }
    if (constrained == 1u) {
      u = contactFiltered(u, contactNormals[i]);
    }
    storeVector(preconditionedRef, i, u);
  }
}
