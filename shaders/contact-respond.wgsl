// After a constrained solve, one thread per particle (CPU mirror: CpuContacts.respond): a
// particle behind a surface is moved onto it (x); the constraint force λ n, λ = (A Δv − b)·n
// (A Δv in productRef); λ < 0 (adhesion) releases the contact for the next step; λ > 0 bounds
// Coulomb friction on v + Δv relative to the surface's velocity u by μ λ / m, written back into
// Δv (solutionRef).

override solutionRef: u32 = 0u;  // Δv
override rhsRef: u32 = 0u;       // b
override productRef: u32 = 0u;   // A Δv

@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;         // 1/kg
@group(0) @binding(7) var<storage, read> contactNormals: array<vec4<f32>>;    // n, w = 1: constrained
@group(0) @binding(8) var<storage, read_write> contactData: array<vec4<f32>>; // target, gap, collider, released

@compute @workgroup_size(workgroupSize)
fn contactRespondMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || contactNormals[i].w == 0.0) {
    return;
  }
  let n = contactNormals[i].xyz;
  var data = contactData[i];
  let c = colliders[u32(data.z)];
  let x = loadVector(xRef, i);
  let u = colliderVelocity(c, x);
  if (data.y < 0.0) {
    storeVector(xRef, i, x - data.y * n);
  }
  let lambda = dot(loadVector(productRef, i) - loadVector(rhsRef, i), n);
  data.w = select(0.0, 1.0, lambda < 0.0);
  contactData[i] = data;
  if (!(lambda > 0.0)) {
    return;
  }
  let v = loadVector(vRef, i);
  let next = friction(v + loadVector(solutionRef, i), u, n, c.friction, lambda * particleInvMass[i]);
  storeVector(solutionRef, i, next - v);
}
