// Wind on the particles, one thread per particle (CPU mirror: CpuAero.apply, src/backends/cpu/
// aero.ts): each free particle sums the forces of its triangles over the CSR list (in list order:
// no atomics, the same sum every run) and adds s f / 3 — or s f / (3 m) with perMass — to `to`.

struct AeroOp {
  scale: f32,  // s: 1 after an evaluation of a(x, v), the right-hand side's force factor after rhs
}

override toRef: u32 = 2u;   // the vector the force is added to
override perMass: u32 = 1u; // 1: divide by the mass (an acceleration)

@group(0) @binding(4) var<uniform> op: AeroOp;
@group(0) @binding(5) var<storage, read> particleInvMass: array<f32>;      // 1/kg; 0: fixed
@group(0) @binding(6) var<storage, read> triangleOffsets: array<u32>;      // [n + 1]
@group(0) @binding(7) var<storage, read> triangleEntries: array<u32>;      // 3 t + corner
@group(0) @binding(8) var<storage, read> triangleForces: array<vec4<f32>>; // N, per triangle

@compute @workgroup_size(workgroupSize)
fn aeroGatherMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || particleInvMass[i] == 0.0) {
    return;
  }
  var f = vec3<f32>(0.0);
  for (var e = triangleOffsets[i]; e < triangleOffsets[i + 1u]; e++) {
    f += triangleForces[triangleEntries[e] / 3u].xyz;
  }
  let s = op.scale * select(1.0, particleInvMass[i], perMass == 1u) / 3.0;
  storeVector(toRef, i, loadVector(toRef, i) + s * f);
}
