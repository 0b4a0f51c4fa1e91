// Tolerance-scaled error norm of an adaptive step, per-workgroup partial sums (CPU mirror:
// src/adaptive/error-norm.ts; Hairer, Nørsett & Wanner I, §II.4, eq. 4.10–4.11):
//   sc = a + r max(|y|, |ŷ|),  terms w e / sc for the x and v components of free particles;
//   partial = (Σ terms², max |term|, 1 if any term is not finite, 0).
// mode 0: e = (aPositions, aVelocities), ŷ = b.  mode 1: e = a − b (step doubling), ŷ = b.

struct ErrorNorm {
  relative: f32,          // r
  absolutePosition: f32,  // a for x, m
  absoluteVelocity: f32,  // a for v, m/s
  positionWeight: f32,
  velocityWeight: f32,
  mode: u32,
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> norm: ErrorNorm;
@group(0) @binding(2) var<storage, read> startPositions: array<vec4<f32>>;   // y
@group(0) @binding(3) var<storage, read> startVelocities: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> aPositions: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> aVelocities: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> bPositions: array<vec4<f32>>;       // ŷ
@group(0) @binding(7) var<storage, read> bVelocities: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> particleInvMass: array<f32>;         // 0: fixed
@group(0) @binding(9) var<storage, read_write> partials: array<vec4<f32>>;

var<workgroup> sums: array<vec4<f32>, workgroupSize>;

@compute @workgroup_size(workgroupSize)
fn errorNormMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  var value = vec4<f32>(0.0);
  if (i < params.particleCount && particleInvMass[i] > 0.0) {
    let yx = startPositions[i].xyz;
    let yv = startVelocities[i].xyz;
    let bx = bPositions[i].xyz;
    let bv = bVelocities[i].xyz;
    var ex = aPositions[i].xyz;
    var ev = aVelocities[i].xyz;
    if (norm.mode == 1u) {
      ex -= bx;
      ev -= bv;
    }
    let tx = norm.positionWeight * ex / (norm.absolutePosition + norm.relative * max(abs(yx), abs(bx)));
    let tv = norm.velocityWeight * ev / (norm.absoluteVelocity + norm.relative * max(abs(yv), abs(bv)));
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
