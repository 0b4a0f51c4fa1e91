// `eval`, pass 2 of 2: accelerations by gathering, one thread per particle (CPU mirror:
// src/backends/cpu/passes.ts accelerations):
//   a_i = (Σ_{incident springs} ±f_s) / m_i + g − r_m v_i  for a free particle,  a_i = 0 if fixed.
// The sum runs over the particle's incident list in order: no atomics, bit-identical run to run.

@group(0) @binding(4) var<uniform> op: EvalOp;
// Force on each spring's first endpoint, N (program-forces.wgsl).
@group(0) @binding(5) var<storage, read> springForces: array<vec4<f32>>;
// CSR: particle i's entries are incidentSprings[incidentOffsets[i] .. incidentOffsets[i + 1]).
@group(0) @binding(6) var<storage, read> incidentOffsets: array<u32>;
// 2 * spring + side; side 1 (second endpoint) receives −f.
@group(0) @binding(7) var<storage, read> incidentSprings: array<u32>;
// 1/m, 1/kg; 0 holds a particle fixed.
@group(0) @binding(8) var<storage, read> particleInvMass: array<f32>;

@compute @workgroup_size(workgroupSize)
fn programGatherMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  var force = vec3<f32>(0.0);
  for (var e = incidentOffsets[i]; e < incidentOffsets[i + 1u]; e++) {
    let entry = incidentSprings[e];
    let f = springForces[entry >> 1u].xyz;
    force += select(f, -f, (entry & 1u) == 1u);
  }
  let invMass = particleInvMass[i];
  var a = vec3<f32>(0.0);
  if (invMass > 0.0) {
    a = force * invMass + params.gravity - op.rayleighMass * loadVector(vRef, i);
  }
  storeVector(aRef, i, a);
}
