// Bending's part of each particle's diagonal block of A = α M + β B + γ K (CPU mirror:
// CpuBending.addDiagonal, src/backends/cpu/bending.ts), one thread per particle:
//   Σ_{hinges of i} (γ 2kc + β dc) ∇_iθ ∇_iθᵀ,
// which system-diagonal.wgsl adds to the springs' before inverting.

@group(0) @binding(4) var<uniform> solver: SolverParams;  // the solve's β, γ
@group(0) @binding(5) var<storage, read> hinges: array<Hinge>;
@group(0) @binding(6) var<storage, read> hingeStates: array<vec4<f32>>;  // as bending-hinges.wgsl wrote them
@group(0) @binding(7) var<storage, read> hingeIncidence: array<u32>;    // as in bending-gather.wgsl
// Two vec4 per particle: (xx, yy, zz, 0), (xy, xz, yz, 0).
@group(0) @binding(8) var<storage, read_write> bendingDiagonal: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn bendingDiagonalMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  var d = vec3<f32>(0.0);
  var o = vec3<f32>(0.0);
  let entries = params.particleCount + 1u;
  for (var e = hingeIncidence[i]; e < hingeIncidence[i + 1u]; e++) {
    let entry = hingeIncidence[entries + e];
    let hinge = hinges[entry >> 2u];
    let w = solver.stiffnessCoefficient * hinge.stiffness + solver.dampingCoefficient * hinge.damping;
    let g = hingeStates[entry].xyz;
    d += w * g * g;
    o += w * vec3<f32>(g.x * g.y, g.x * g.z, g.y * g.z);
  }
  bendingDiagonal[2u * i] = vec4<f32>(d, 0.0);
  bendingDiagonal[2u * i + 1u] = vec4<f32>(o, 0.0);
}
