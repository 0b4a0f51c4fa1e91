// Right-hand side of every implicit scheme as one linear form, one thread per particle
// (CPU mirror: src/cpu/implicit-passes.ts assembleRhs):
//   b_i = s_f f_i + c_w w_i + m_i (c_v v_i + c_a a_i) − (K (γ_v v + γ_a a))_i − (B (β_v v + β_a a))_i,
//   f_i = Σ ±F_s + m_i g;  b_i = 0 for fixed particles.
// The schemes' coefficients: src/webgpu/webgpu-implicit-simulation.ts (= the CPU path's).

struct RhsCoefficients {
  forceScale: f32,             // s_f
  extraScale: f32,             // c_w
  velocityMass: f32,           // c_v
  accelerationMass: f32,       // c_a
  velocityStiffness: f32,      // γ_v
  accelerationStiffness: f32,  // γ_a
  velocityDamping: f32,        // β_v
  accelerationDamping: f32,    // β_a
}

// vRef, aRef (program-vectors.wgsl): v and a; extraRef: w; toRef: where b is written.
override extraRef: u32 = 0u;
override toRef: u32 = 0u;

@group(0) @binding(4) var<uniform> coefficients: RhsCoefficients;
@group(0) @binding(5) var<storage, read> springStates: array<SpringState>;
// CSR: offsets [0, n], then per entry the pair (2 * spring + side, other endpoint) from n + 1 on.
@group(0) @binding(6) var<storage, read> incidence: array<u32>;
// m_i, kg; 0 marks a fixed particle.
@group(0) @binding(7) var<storage, read> particleMass: array<f32>;

@compute @workgroup_size(workgroupSize)
fn implicitRhsMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let m = particleMass[i];
  if (m == 0.0) {
    storeVector(toRef, i, vec3<f32>(0.0));
    return;
  }
  let c = coefficients;
  let vi = loadVector(vRef, i);
  let ai = loadVector(aRef, i);
  var b = c.forceScale * m * params.gravity;
  let entries = params.particleCount + 1u;
  for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
    let entry = incidence[entries + 2u * e];
    let other = incidence[entries + 2u * e + 1u];
    let state = springStates[entry >> 1u];
    let sign = select(1.0, -1.0, (entry & 1u) == 1u);
    b += sign * c.forceScale * springForce(state);
    let dv = vi - loadVector(vRef, other);
    let da = ai - loadVector(aRef, other);
    b -= springBlockProduct(state, 0.0, 1.0, c.velocityStiffness * dv + c.accelerationStiffness * da);
    b -= springBlockProduct(state, 1.0, 0.0, c.velocityDamping * dv + c.accelerationDamping * da);
  }
  storeVector(toRef, i, b + c.extraScale * loadVector(extraRef, i) + m * (c.velocityMass * vi + c.accelerationMass * ai));
}
