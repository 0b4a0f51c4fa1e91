// Self-collision, each particle's move and reach before a listing (CPU mirror:
// CpuSelfContact.listPairs), one thread per particle: m_i as self-pair-mean.wgsl (`motion`), and
// D_i = |m_i − m̄| + slack/2 (the spatial hash's reach: |m_i − m_j| ≤ D_i + D_j − slack), written
// as selfParticle[i] = (D_i, m_i) for self-keys.wgsl (reach 'given') and self-narrow.wgsl
// (`relative`). In a later sweep (motion 2) the scale becomes ⌊s_i⌋ here.

override motion: u32 = 0u;

@group(0) @binding(6) var<uniform> selfOp: SelfPairOp;
@group(0) @binding(7) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(8) var<storage, read_write> selfScale: array<f32>;
@group(0) @binding(9) var<storage, read_write> selfParticle: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn selfPairReachMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  var m = selfOp.h * loadVector(vRef, i);
  if (motion != 0u) {
    var s = selfScale[i];
    if (motion == 2u) {
      s = select(1.0, 0.0, s < 1.0);
      selfScale[i] = s;
    }
    m = s * (loadVector(xRef, i) - loadVector(startRef, i));
  }
  let mean = vec3<f32>(bitcast<f32>(selfPairs[SELF_MEAN]), bitcast<f32>(selfPairs[SELF_MEAN + 1u]), bitcast<f32>(selfPairs[SELF_MEAN + 2u]));
  let reach = length(m - mean) + 0.5 * bitcast<f32>(selfPairs[SELF_SLACK]);
  selfParticle[i] = vec4<f32>(reach, m);
}
