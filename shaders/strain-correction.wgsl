// `strainCorrection`: one Jacobi sweep of Provot's (1995) strain limit, one thread per particle
// (CPU mirror: src/backends/cpu/strain-limit.ts). Over particle i's incident springs s = (i, j)
// with l = |x_j − x_i| > l_max = (1 + τ) L_s:
//   Δ_i = (1 / c_i) Σ_s w_i / (w_i + w_j) (l − l_max) (x_j − x_i) / l,
// w the inverse masses, c_i the count of such springs; Δ_i = 0 otherwise (and on fixed particles).
// A gather over the incidence list: no atomics, the same sum order every run.

override toRef: u32 = 2u;  // where Δ is written (xRef, program-vectors.wgsl: the positions read)

struct StrainOp {
  maxStretch: f32,  // τ
}

@group(0) @binding(4) var<uniform> op: StrainOp;
@group(0) @binding(5) var<storage, read> springs: array<Spring>;
// CSR: particle i's entries are incidentSprings[incidentOffsets[i] .. incidentOffsets[i + 1]).
@group(0) @binding(6) var<storage, read> incidentOffsets: array<u32>;
// 2 * spring + side; side 1: the particle is the spring's second endpoint.
@group(0) @binding(7) var<storage, read> incidentSprings: array<u32>;
@group(0) @binding(8) var<storage, read> particleInvMass: array<f32>;

@compute @workgroup_size(workgroupSize)
fn strainCorrectionMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let wi = particleInvMass[i];
  let xi = loadVector(xRef, i);
  var sum = vec3<f32>(0.0);
  var count = 0.0;
  for (var e = incidentOffsets[i]; wi > 0.0 && e < incidentOffsets[i + 1u]; e++) {
    let entry = incidentSprings[e];
    let spring = springs[entry >> 1u];
    let j = select(spring.particleB, spring.particleA, (entry & 1u) == 1u);
    let d = loadVector(xRef, j) - xi;
    let l = length(d);
    let excess = l - (1.0 + op.maxStretch) * spring.restLength;
    if (excess > 0.0) {
      sum += (wi / (wi + particleInvMass[j])) * (excess / l) * d;
      count += 1.0;
    }
  }
  storeVector(toRef, i, select(vec3<f32>(0.0), sum / count, count > 0.0));
}
