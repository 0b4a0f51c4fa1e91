// Start of a linear solve, one thread per particle (CPU mirror: src/cpu/linear-solver.ts):
//   x = 0, r = b, z = P⁻¹ r, p = z;  partial sums of (r·z, b·b) per workgroup.
// P⁻¹ is the stored inverse diagonal, or the identity on free particles for plain CG.

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> solver: SolverParams;
@group(0) @binding(2) var<storage, read> rhs: array<vec4<f32>>;               // b
@group(0) @binding(3) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // P⁻¹ blocks
@group(0) @binding(4) var<storage, read> particleMass: array<f32>;            // 0: fixed
@group(0) @binding(5) var<storage, read_write> solution: array<vec4<f32>>;    // x
@group(0) @binding(6) var<storage, read_write> residual: array<vec4<f32>>;    // r
@group(0) @binding(7) var<storage, read_write> direction: array<vec4<f32>>;   // p
@group(0) @binding(8) var<storage, read_write> partials: array<vec4<f32>>;    // per workgroup

@compute @workgroup_size(workgroupSize)
fn cgInitMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  var sums = vec4<f32>(0.0);
  if (i < params.particleCount) {
    let b = rhs[i].xyz;
    let z = preconditioned(i, b);
    solution[i] = vec4<f32>(0.0);
    residual[i] = vec4<f32>(b, 0.0);
    direction[i] = vec4<f32>(z, 0.0);
    sums = vec4<f32>(dot(b, z), dot(b, b), 0.0, 0.0);
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}

fn preconditioned(i: u32, r: vec3<f32>) -> vec3<f32> {
  if (solver.preconditioner == 0u) {
    return select(r, vec3<f32>(0.0), particleMass[i] == 0.0);
  }
  return symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
}
