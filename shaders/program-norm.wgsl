// `norm`: the tolerance-scaled error norm of an attempted step, per-workgroup partials (CPU
// mirror: src/backends/cpu/error-norm.ts; Hairer, Nørsett & Wanner I, §II.4, eq. 4.10–4.11):
//   sc = a + r max(|y|, |ŷ|),  terms w e / sc for the x and v components of free particles;
//   partial = (Σ terms², max |term|, 1 if any term is not finite, 0).
// The host adds the partials (read back once per attempt) and takes √(Σ/N) or the max.
// The tree reduction needs a power-of-two workgroupSize.

override errorX: u32 = 0u;  // references of e (m, m/s)
override errorV: u32 = 0u;
override startX: u32 = 0u;  // … of y, the state at the start of the step
override startV: u32 = 0u;
override endX: u32 = 0u;    // … of ŷ, the candidate
override endV: u32 = 0u;

struct NormOp {
  relative: f32,          // r
  absolutePosition: f32,  // a for x, m
  absoluteVelocity: f32,  // a for v, m/s
  positionWeight: f32,
  velocityWeight: f32,
}

@group(0) @binding(4) var<uniform> op: NormOp;
@group(0) @binding(5) var<storage, read> particleInvMass: array<f32>;  // 0: fixed, left out
@group(0) @binding(6) var<storage, read_write> partials: array<vec4<f32>>;

var<workgroup> sums: array<vec4<f32>, workgroupSize>;

@compute @workgroup_size(workgroupSize)
fn programNormMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  var value = vec4<f32>(0.0);
  if (i < params.particleCount && particleInvMass[i] > 0.0) {
    let yx = loadVector(startX, i);
    let yv = loadVector(startV, i);
    let bx = loadVector(endX, i);
    let bv = loadVector(endV, i);
    let tx = op.positionWeight * loadVector(errorX, i) / (op.absolutePosition + op.relative * max(abs(yx), abs(bx)));
    let tv = op.velocityWeight * loadVector(errorV, i) / (op.absoluteVelocity + op.relative * max(abs(yv), abs(bv)));
    let largest = max(max(max(abs(tx.x), abs(tx.y)), abs(tx.z)), max(max(abs(tv.x), abs(tv.y)), abs(tv.z)));
    let sum = dot(tx, tx) + dot(tv, tv);
    // NaN fails every comparison; Inf exceeds the largest f32.
    let finite = sum == sum && sum <= 3.4e38 && largest <= 3.4e38;
    value = vec4<f32>(sum, largest, select(1.0, 0.0, finite), 0.0);
  }
  sums[local] = value;
  workgroupBarrier();
  for (var stride = workgroupSize / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      let a = sums[local];
      let b = sums[local + stride];
      sums[local] = vec4<f32>(a.x + b.x, max(a.y, b.y), max(a.z, b.z), 0.0);
    }
    workgroupBarrier();
  }
  if (local == 0u) {
    partials[group.x + group.y * groups.x] = sums[0];
  }
}
