// Matrix-free product q = A p with A = α M + β B + γ K, one thread per particle, gathering over
// the particle's springs (CPU mirror: src/cpu/implicit-passes.ts systemProduct):
//   q_i = α m_i p_i + Σ_s (β c n nᵀ + γ J_s)(p_i − p_j);  q_i = 0 on fixed particles,
// the blocks read per incidence entry (contiguous for each particle) as system-blocks.wgsl wrote
// them at the solve's start.
// Also the partial sums per workgroup of (p·q, r·p, r·r) (CG's reduction: cg-step.wgsl, with
// p = u = P⁻¹ r the preconditioned residual; r·p and r·r only when `withResidual` = 1).

override inputRef: u32 = 0u;    // p
override productRef: u32 = 0u;  // q = A p
override withResidual: u32 = 0u;
override residualRef: u32 = 0u;  // r

@group(0) @binding(4) var<uniform> solver: SolverParams;
@group(0) @binding(5) var<storage, read> incidence: array<u32>;        // as in implicit-rhs.wgsl
// Per incidence entry, its spring's block a I + b n nᵀ in this solve (system-blocks.wgsl).
@group(0) @binding(6) var<storage, read> entryBlocks: array<vec4<f32>>;  // xyz: n; w: b
@group(0) @binding(7) var<storage, read> entryStiffness: array<f32>;     // a
@group(0) @binding(8) var<storage, read> particleMass: array<f32>;       // kg; 0: fixed
@group(0) @binding(9) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(groupThreads)
fn systemProductMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount) {
      sums += productAt(i);
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}

// Writes q_i and returns particle i's terms of (p·q, r·p, r·r).
fn productAt(i: u32) -> vec4<f32> {
  var sums = vec4<f32>(0.0);
  let m = particleMass[i];
  var q = vec3<f32>(0.0);
  let pi = loadVector(inputRef, i);
  if (m > 0.0) {
    q = solver.massCoefficient * m * pi;
    let entries = params.particleCount + 1u;
    for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
      q += entryProduct(e, pi - loadVector(inputRef, incidence[entries + 2u * e + 1u]));
    }
    sums.x = dot(pi, q);
  }
  storeVector(productRef, i, q);
  if (withResidual == 1u) {
    let r = loadVector(residualRef, i);
    sums = vec4<f32>(sums.x, dot(r, pi), dot(r, r), 0.0);
  }
  return sums;
}

// Entry e's block a I + b n nᵀ applied to u (as springBlockProduct, with a and b formed per solve).
fn entryProduct(e: u32, u: vec3<f32>) -> vec3<f32> {
  let n = entryBlocks[e].xyz;
  let b = entryBlocks[e].w;
  return entryStiffness[e] * u + (b * dot(n, u)) * n;
}
