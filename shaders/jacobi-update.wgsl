// Block-Jacobi iteration (CPU mirror: src/backends/cpu/linear-solver.ts jacobiSolve), after q = A x:
//   r = S (b − q),  x += D_S⁻¹ r;  partial sums of r·r (the residual before this update).
// S is the contact filter of a constrained solve (Baraff & Witkin 1998 §5.3; contactFiltered):
// x starts at x₀ = z and keeps its constrained part; D_S⁻¹ is D's inverse on a constrained
// particle's tangent plane (0 when it sticks); unconstrained, S = I and D_S = D.

override rhsRef: u32 = 0u;       // b
override productRef: u32 = 0u;   // q = A x
override solutionRef: u32 = 0u;  // x
override constrained: u32 = 0u;  // 1: filter r and the update by the contacts

@group(0) @binding(4) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // D⁻¹ (0 when fixed)
@group(0) @binding(5) var<storage, read_write> partials: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> contactNormals: array<vec4<f32>>;    // n, w: the constraint

// On a particle held along n the step solves D restricted to the tangent plane, not S D⁻¹ S (which
// diverged on a draped cloth, on both backends): dx − (D⁻¹ n) (n·dx) / (n·D⁻¹ n), dx = D⁻¹ r, then
// filtered (0 when the contact sticks).
fn tangentStep(blockA: vec3<f32>, blockB: vec3<f32>, dx: vec3<f32>, normal: vec4<f32>) -> vec3<f32> {
  let w = symmetricProduct(blockA, blockB, normal.xyz);
  let nw = dot(normal.xyz, w);
  var tangential = dx;
  if (normal.w > 0.0 && nw > 0.0) {
    tangential -= w * (dot(normal.xyz, dx) / nw);
  }
  return contactFiltered(tangential, normal);
}

@compute @workgroup_size(groupThreads)
fn jacobiUpdateMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount) {
      var r = loadVector(rhsRef, i) - loadVector(productRef, i);
      let blockA = inverseDiagonal[2u * i].xyz;
      let blockB = inverseDiagonal[2u * i + 1u].xyz;
      if (constrained == 1u) {
        r = contactFiltered(r, contactNormals[i]);
      }
      var dx = symmetricProduct(blockA, blockB, r);
      if (constrained == 1u) {
        dx = tangentStep(blockA, blockB, dx, contactNormals[i]);
      }
      storeVector(solutionRef, i, loadVector(solutionRef, i) + dx);
      sums.x += dot(r, r);
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
