// Self-collision, the moves' mean before a listing (CPU mirror: CpuSelfContact.listPairs), one
// workgroup: m̄ = Σ_i m_i / n, each thread summing particles t, t + W, … in order and the
// workgroup's partials added in a fixed tree (the same sum every run). The move m_i (`motion`):
//   0, the step's start (selfContacts, CpuSelfContact.detect): m_i = h v_i, and also |x|∞;
//   1, a fail-safe sweep (selfFailSafe, sweepOnce): m_i = s_i (x_i − x₀_i), s_i the particle's scale;
//   2, a later sweep: m_i = ⌊s_i⌋ (x_i − x₀_i) (shortened particles stay: s < 1 counts as 0).
// Writes the slack (r/2 + h²|g| at the start, r/10 in the fail-safe), m̄ and |x|∞ into selfPairs
// words 4 … 8.

override motion: u32 = 0u;

@group(0) @binding(6) var<uniform> selfOp: SelfPairOp;
@group(0) @binding(7) var<storage, read_write> selfPairs: array<u32>;
@group(0) @binding(8) var<storage, read> selfScale: array<f32>;  // s_i per particle

// The move of particle i (self-pair-reach.wgsl reads the same).
fn moveAt(i: u32) -> vec3<f32> {
  if (motion == 0u) {
    return selfOp.h * loadVector(vRef, i);
  }
  var s = selfScale[i];
  if (motion == 2u) {
    s = select(1.0, 0.0, s < 1.0);
  }
  return s * (loadVector(xRef, i) - loadVector(startRef, i));
}

var<workgroup> meanScratch: array<vec4<f32>, workgroupSize>;

@compute @workgroup_size(workgroupSize)
fn selfPairMeanMain(@builtin(local_invocation_index) local: u32) {
  let n = params.particleCount;
  var sum = vec4<f32>(0.0);
  for (var i = local; i < n; i += workgroupSize) {
    sum = vec4<f32>(sum.xyz + moveAt(i), sum.w);
    if (motion == 0u) {
      let a = abs(loadVector(xRef, i));
      sum.w = max(sum.w, max(max(a.x, a.y), a.z));
    }
  }
  meanScratch[local] = sum;
  workgroupBarrier();
  for (var stride = workgroupSize / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      let other = meanScratch[local + stride];
      meanScratch[local] = vec4<f32>(meanScratch[local].xyz + other.xyz, max(meanScratch[local].w, other.w));
    }
    workgroupBarrier();
  }
  if (local == 0u) {
    let total = meanScratch[0];
    let mean = total.xyz / f32(max(n, 1u));
    var slack = 0.1 * selfOp.thickness;
    if (motion == 0u) {
      slack = 0.5 * selfOp.thickness + selfOp.h * selfOp.h * selfOp.gravity;
      selfPairs[SELF_EXTENT] = bitcast<u32>(total.w);
    }
    selfPairs[SELF_SLACK] = bitcast<u32>(slack);
    selfPairs[SELF_MEAN] = bitcast<u32>(mean.x);
    selfPairs[SELF_MEAN + 1u] = bitcast<u32>(mean.y);
    selfPairs[SELF_MEAN + 2u] = bitcast<u32>(mean.z);
  }
}
