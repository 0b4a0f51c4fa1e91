// Explicit steps' contacts, one thread per particle, after a step of h (CPU mirror:
// CpuContacts.project, src/backends/cpu/contacts.ts): a particle behind a surface is moved onto
// it, an inward normal velocity (v − u)·n < 0 removed (Δv_n = −(v − u)·n, u the surface's
// velocity), Coulomb friction removes up to μ Δv_n of the tangential velocity relative to the
// surface, and that change is taken back from the step's motion as the scheme carries it,
// x += drift h Δv_t (src/integrators/program.ts, `project`: drift = 1 for x₊ = x + h v₊, ½ for
// a scheme exact under a constant acceleration). A particle counts when g < reach (1 + |x|∞):
// reach = 0 (behind), +SURFACE_SLACK with `onSurface` (on the surface to rounding: explicit
// Euler's x₊ = x + h v lags its v₊ and ends a resting step there moving into it), −SURFACE_SLACK
// with `slack` (the implicit schemes': only a particle behind by more than rounding).

struct ProjectOp {
  carry: f32,  // drift · h, s
}

// xRef, vRef (program-vectors.wgsl): the state projected. A particle whose velocity changed gets
// the new one in the scheme's velocity history too, where it is restarted (history-restart.wgsl).

override reach: f32 = 0.0;  // 0 or ±SURFACE_SLACK of src/model/colliders.ts

@group(0) @binding(5) var<uniform> op: ProjectOp;
@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;  // 1/kg; 0: fixed

@compute @workgroup_size(workgroupSize)
fn contactProjectMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || particleInvMass[i] == 0.0) {
    return;
  }
  var x = loadVector(xRef, i);
  let c = nearestContact(x, reach * (1.0 + max(max(abs(x.x), abs(x.y)), abs(x.z))));
  if (c.collider < 0) {
    return;
  }
  let collider = colliders[c.collider];
  let u = colliderVelocity(collider, x);
  x -= c.gap * c.normal;
  var v = loadVector(vRef, i);
  let vn = dot(v - u, c.normal);
  if (vn < 0.0) {
    v -= vn * c.normal;
    let before = v;
    v = friction(v, u, c.normal, collider.friction, -vn);
    x += op.carry * (v - before);
    storeVector(vRef, i, v);
    restartHistory(i, v);
  }
  storeVector(xRef, i, x);
}
