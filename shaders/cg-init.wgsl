// Start of a linear solve, one thread per particle (CPU mirror: src/cpu/linear-solver.ts):
//   x = 0, r = b, z = P⁻¹ r, p = z;  partial sums of (r·z, b·b) per workgroup.
// Warm (`warm` = 1): x keeps the last solution and r = b − A x, A x computed into productRef.
// P⁻¹ is the stored inverse diagonal, or the identity on free particles for plain CG.

override rhsRef: u32 = 0u;        // b
override solutionRef: u32 = 0u;   // x
override residualRef: u32 = 0u;   // r
override directionRef: u32 = 0u;  // p
override warm: u32 = 0u;          // 1: start from x, with q = A x in productRef
override productRef: u32 = 0u;
override constrained: u32 = 0u;  // 1: contacts filter r and z (x holds x₀ = z, warm = 1), and the
                                  // second partial is r₀·r₀, the reference of the relative residual
override resume: u32 = 0u;       // 1: x and r as the last solve left them (contacts released since:
                                  // src/integrators/program.ts `solve`), r not filtered again

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> inverseDiagonal: array<vec4<f32>>;   // P⁻¹ blocks
@group(0) @binding(6) var<storage, read> particleMass: array<f32>;            // 0: fixed
@group(0) @binding(7) var<storage, read_write> partials: array<vec4<f32>>;    // per workgroup
@group(0) @binding(8) var<storage, read> contactNormals: array<vec4<f32>>;    // n, w = 1: constrained

@compute @workgroup_size(groupThreads)
fn cgInitMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount) {
      sums += startAt(i);
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}

// Writes x, r and p of particle i and returns its terms of (r·z, b·b).
fn startAt(i: u32) -> vec4<f32> {
  let b = loadVector(rhsRef, i);
  var r = b;
  if (resume == 1u) {
    r = loadVector(residualRef, i);
    let z = contactFiltered(preconditioned(i, r), contactNormals[i]);
    storeVector(directionRef, i, z);
    return vec4<f32>(dot(r, z), dot(r, r), 0.0, 0.0);
  }
  if (warm == 1u) {
    r = b - loadVector(productRef, i);
  } else {
    storeVector(solutionRef, i, vec3<f32>(0.0));
  }
  if (constrained == 1u) {
    r = contactFiltered(r, contactNormals[i]);
    let z = contactFiltered(preconditioned(i, r), contactNormals[i]);
    storeVector(residualRef, i, r);
    storeVector(directionRef, i, z);
    return vec4<f32>(dot(r, z), dot(r, r), 0.0, 0.0);
  }
  let z = preconditioned(i, r);
  storeVector(residualRef, i, r);
  storeVector(directionRef, i, z);
  return vec4<f32>(dot(r, z), dot(b, b), 0.0, 0.0);
}

fn preconditioned(i: u32, r: vec3<f32>) -> vec3<f32> {
  if (solver.preconditioner == 0u) {
    return select(r, vec3<f32>(0.0), particleMass[i] == 0.0);
  }
  return symmetricProduct(inverseDiagonal[2u * i].xyz, inverseDiagonal[2u * i + 1u].xyz, r);
}
