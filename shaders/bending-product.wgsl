// Bending's part of CG's product q = A p, after system-product.wgsl (or mg-product.wgsl) wrote
// the springs' (CPU mirror: the end of systemProduct, src/backends/cpu/implicit-passes.ts): each
// free particle adds Δq_i = Σ its hinges' terms (γ 2kc + β dc)(∇θ·p) ∇_iθ (bending-terms.wgsl), and
// each workgroup adds Σ p_i·Δq_i to its partial of CG's reduction, which the product kernel wrote
// with the same grouping (groupParticle), so that p·q counts the hinges.

override inputRef: u32 = 0u;    // p
override productRef: u32 = 0u;  // q = A p

@group(0) @binding(4) var<storage, read> particleInvMass: array<f32>;  // 1/kg; 0: fixed
@group(0) @binding(5) var<storage, read> hingeIncidence: array<u32>;   // as in bending-gather.wgsl
@group(0) @binding(6) var<storage, read> hingeTerms: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(groupThreads)
fn bendingProductMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < params.particleCount && particleInvMass[i] > 0.0) {
      var dq = vec3<f32>(0.0);
      let entries = params.particleCount + 1u;
      for (var e = hingeIncidence[i]; e < hingeIncidence[i + 1u]; e++) {
        dq += hingeTerms[hingeIncidence[entries + e]].xyz;
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
