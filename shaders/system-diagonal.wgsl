// Inverse of each particle's diagonal block of A = α M + β B + γ K, one thread per particle
// (CPU mirror: src/cpu/implicit-passes.ts diagonalInverse):
//   A_ii = α m_i I + Σ_s (β c n nᵀ + γ J_s) (+ the hinges' blocks with bending);  stored inverse 3×3 (block) or 1/diagonal (scalar);
//   0 for fixed particles, which filters them out of every solve.

// (no vectors: A's diagonal from the spring states)

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> springStates: array<SpringState>;
@group(0) @binding(6) var<storage, read> incidence: array<u32>;      // as in implicit-rhs.wgsl
@group(0) @binding(7) var<storage, read> particleMass: array<f32>;   // kg; 0: fixed
// Two vec4 per particle: (xx, yy, zz, 0), (xy, xz, yz, 0) of the inverse.
@group(0) @binding(8) var<storage, read_write> inverseDiagonal: array<vec4<f32>>;
// withBending = 1: bending's part of each block, two vec4 as inverseDiagonal's (bending-diagonal.wgsl).
override withBending: u32 = 0u;
@group(0) @binding(9) var<storage, read> bendingDiagonal: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn systemDiagonalMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let m = particleMass[i];
  if (m == 0.0) {
    inverseDiagonal[2u * i] = vec4<f32>(0.0);
    inverseDiagonal[2u * i + 1u] = vec4<f32>(0.0);
    return;
  }
  var d = vec3<f32>(solver.massCoefficient * m);
  var o = vec3<f32>(0.0);
  let entries = params.particleCount + 1u;
  for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
    let state = springStates[incidence[entries + 2u * e] >> 1u];
    let blocks = springBlock(state, solver.dampingCoefficient, solver.stiffnessCoefficient);
    d += blocks.diagonal;
    o += blocks.offDiagonal;
  }
  if (withBending == 1u) {
    d += bendingDiagonal[2u * i].xyz;
    o += bendingDiagonal[2u * i + 1u].xyz;
  }
  if (solver.preconditioner != 2u) {
    inverseDiagonal[2u * i] = vec4<f32>(1.0 / d, 0.0);
    inverseDiagonal[2u * i + 1u] = vec4<f32>(0.0);
    return;
  }
  // Symmetric inverse by cofactors.
  let cxx = d.y * d.z - o.z * o.z;
  let cxy = o.y * o.z - o.x * d.z;
  let cxz = o.x * o.z - o.y * d.y;
  let determinant = d.x * cxx + o.x * cxy + o.y * cxz;
  inverseDiagonal[2u * i] = vec4<f32>(cxx, d.x * d.z - o.y * o.y, d.x * d.y - o.x * o.x, 0.0) / determinant;
  inverseDiagonal[2u * i + 1u] = vec4<f32>(cxy, cxz, o.x * o.y - d.x * o.z, 0.0) / determinant;
}
