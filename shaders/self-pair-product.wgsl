// Self-collision's part of CG's product q = A p, after system-product.wgsl (or mg-product.wgsl)
// and bending's (CPU mirror: the end of systemProduct, src/backends/cpu/implicit-passes.ts; as
// bending-product.wgsl): each free particle adds Δq_i = Σ its pairs' terms (γ κ + β β_e)(g·p) g_i
// (self-pair-terms.wgsl) over the detection's incidence, and each workgroup adds Σ p_i·Δq_i to its
// partial of CG's reduction (the product kernel's grouping, groupParticle).

override inputRef: u32 = 0u;    // p
override productRef: u32 = 0u;  // q = A p

@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;
@group(0) @binding(7) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(8) var<storage, read> pairTerms: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(groupThreads)
fn selfPairProductMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount && particleInvMass[i] > 0.0) {
      var dq = vec3<f32>(0.0);
      for (var k = selfPairs[incidenceAt + i]; k < selfPairs[incidenceAt + i + 1u]; k++) {
        dq += pairTerms[selfPairs[entriesAt + k]].xyz;
      }
      storeVector(productRef, i, loadVector(productRef, i) + dq);
      sums.x += dot(loadVector(inputRef, i), dq);
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    let g = groupIndex(group, groups);
    partials[g] = partials[g] + total;
  }
}
