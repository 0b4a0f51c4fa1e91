// CG iteration, after β (CPU mirror: src/cpu/linear-solver.ts):  p = z + β p,  z = P⁻¹ r.

override residualRef: u32 = 0u;   // r
override directionRef: u32 = 0u;  // p
override givenZ: u32 = 0u;        // 1: z = P⁻¹ r is the vector zRef (a multigrid V-cycle's)
override zRef: u32 = 0u;

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> control: SolverControl;
@group(0) @binding(6) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // P⁻¹
@group(0) @binding(7) var<storage, read> particleMass: array<f32>;            // 0: fixed

@compute @workgroup_size(workgroupSize)
fn cgDirectionMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let r = loadVector(residualRef, i);
  var z = select(r, vec3<f32>(0.0), particleMass[i] == 0.0);
  if (givenZ == 1u) {
    z = loadVector(zRef, i);
  } else if (solver.preconditioner != 0u) {
    z = symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
  }
  storeVector(directionRef, i, z + control.beta * loadVector(directionRef, i));
}
