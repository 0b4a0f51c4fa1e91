// CG's product q = A p on level 0 from the multigrid's compact blocks (CPU mirror:
// CpuMultigrid.applyLevel(0)): per particle S_i 32 bytes, per incident spring its entry 8, E 32
// and p_j 16 bytes — against system-product.wgsl's 32-byte spring state — with the partial sums
// (p·q, r·p, r·r) of CG's reduction as in system-product.wgsl. Fixed particles: q = 0.

override inputRef: u32 = 0u;    // p
override productRef: u32 = 0u;  // q = A p
override withResidual: u32 = 0u;
override residualRef: u32 = 0u;  // r

@group(0) @binding(8) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(groupThreads)
fn mgProductMain(
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  var sums = vec4<f32>(0.0);
  for (var t = 0u; t < groupShare(); t++) {
    let i = groupParticle(group, groups, local, t);
    if (i < nodeCount) {
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
  let q = levelProduct(inputRef, i);
  storeVector(productRef, i, q);
  let p = loadVector(inputRef, i);
  var sums = vec4<f32>(dot(p, q), 0.0, 0.0, 0.0);
  if (withResidual == 1u) {
    let r = loadVector(residualRef, i);
    sums = vec4<f32>(sums.x, dot(r, p), dot(r, r), 0.0);
  }
  return sums;
}
