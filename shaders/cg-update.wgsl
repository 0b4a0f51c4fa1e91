// CG iteration, after α (CPU mirror: src/cpu/linear-solver.ts):
//   x += α p,  r −= α q,  z = P⁻¹ r;  partial sums of (r·z, r·r).

override solutionRef: u32 = 0u;   // x
override residualRef: u32 = 0u;   // r
override directionRef: u32 = 0u;  // p
override productRef: u32 = 0u;    // q = A p

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> control: SolverControl;
@group(0) @binding(6) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // P⁻¹
@group(0) @binding(7) var<storage, read> particleMass: array<f32>;            // 0: fixed
@group(0) @binding(8) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn cgUpdateMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  var sums = vec4<f32>(0.0);
  if (i < params.particleCount) {
    let alpha = control.alpha;
    storeVector(solutionRef, i, loadVector(solutionRef, i) + alpha * loadVector(directionRef, i));
    let r = loadVector(residualRef, i) - alpha * loadVector(productRef, i);
    storeVector(residualRef, i, r);
    var z = select(r, vec3<f32>(0.0), particleMass[i] == 0.0);
    if (solver.preconditioner != 0u) {
      z = symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
    }
    sums = vec4<f32>(dot(r, z), dot(r, r), 0.0, 0.0);
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
