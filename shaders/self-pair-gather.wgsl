// Self-collision on the particles, one thread per particle (CPU mirror: RankOneTerms.gather,
// src/backends/cpu/rank-one-terms.ts; as bending-gather.wgsl): each free particle sums its pairs'
// terms over the detection's incidence (4 pair + corner, ascending: no atomics, the same sum every
// run) and adds the sum — divided by its mass with perMass = 1, after an `eval` — to `to`.

override toRef: u32 = 2u;
override perMass: u32 = 1u;

@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;
@group(0) @binding(7) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(8) var<storage, read> pairTerms: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn selfPairGatherMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || particleInvMass[i] == 0.0) {
    return;
  }
  let first = selfPairs[incidenceAt + i];
  let last = selfPairs[incidenceAt + i + 1u];
  if (first == last) {
    return;
  }
  var f = vec3<f32>(0.0);
  for (var k = first; k < last; k++) {
    f += pairTerms[selfPairs[entriesAt + k]].xyz;
  }
  storeVector(toRef, i, loadVector(toRef, i) + select(1.0, particleInvMass[i], perMass == 1u) * f);
}
