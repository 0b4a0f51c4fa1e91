// Block-Jacobi iteration (CPU mirror: src/cpu/linear-solver.ts), after q = A x:
//   r = b − q,  x += D⁻¹ r;  partial sums of r·r (the residual before this update).

override rhsRef: u32 = 0u;       // b
override productRef: u32 = 0u;   // q = A x
override solutionRef: u32 = 0u;  // x

@group(0) @binding(4) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // D⁻¹ (0 when fixed)
@group(0) @binding(5) var<storage, read_write> partials: array<vec4<f32>>;

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
      let r = loadVector(rhsRef, i) - loadVector(productRef, i);
      let dx = symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
      storeVector(solutionRef, i, loadVector(solutionRef, i) + dx);
      sums.x += dot(r, r);
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
