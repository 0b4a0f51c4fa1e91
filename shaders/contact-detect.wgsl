// The contacts of a constrained solve, one thread per particle (CPU mirror: CpuContacts.detect
// and constrain, src/backends/cpu/contacts.ts, which gives the rule and its sources). With
// `detect` = 1, at (x, v): a free particle's contact is the deepest collider whose gap
// g = φ − thickness it is on or behind (g ≤ surfaceSlack (1 + |x|∞)), or closes in free flight
// within the step (the end-of-step gap of v₊ = v + h g_grav is negative:
// g + h ((v − u)·n + h g_grav·n) < 0, u the surface's velocity; Baraff & Witkin 1998 §5–6: a
// constraint where the unconstrained motion violates it), or was held on in the last solve and is
// within h (|v| + max |u|) + h² |g_grav| of. It is left free if it is on or outside the surface
// (g ≥ −surfaceSlack (1 + |x|∞), rounding's "behind") and either was released by its last contact
// force or moves away ((v − u)·n > receding h |g_grav|); a contact held in the last solve and not
// released stays. A constrained particle gets n and the normal velocity it must end the step
// with, T = u·n − max(g, 0)/h. Detect or not, the solve's unknown s, with v₊ = base + c s
// (src/integrators/contact-programs.ts), starts from x₀ = z n (solutionRef), z = (T − base·n)/c.
// With `stick` = 1 a detected contact on a collider with friction sticks (n.w = 2: static friction,
// held in all three directions; CpuContacts.constrain): x₀ = (V − base)/c, V = u + (T − u·n) n.

struct DetectOp {
  h: f32,        // the step, s
  gravity: f32,  // |g|, m/s²
  scale: f32,    // c of v₊ = base + c s (implicit Euler: 1)
}

override solutionRef: u32 = 0u;  // the solve's x, set to x₀ = z n
override baseRef: u32 = 0u;      // base, the end-of-step velocity at s = 0, m/s
override detect: u32 = 1u;       // 1: find the contacts at (x, v); 0: only restart from z
override surfaceSlack: f32 = 0.0; // SURFACE_SLACK of src/model/colliders.ts
override receding: f32 = 0.0;     // RECEDING_ROUNDING of src/model/colliders.ts
override stick: u32 = 0u;         // 1: contacts with friction start sticking

@group(0) @binding(5) var<uniform> op: DetectOp;
@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;         // 1/kg; 0: fixed
@group(0) @binding(7) var<storage, read_write> contactNormals: array<vec4<f32>>;  // n, w = 1: constrained, 2: sticking
@group(0) @binding(8) var<storage, read_write> contactData: array<vec4<f32>>;     // target, gap, collider, released

@compute @workgroup_size(workgroupSize)
fn contactDetectMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  if (detect == 1u) {
    detectAt(i);
  }
  let normal = contactNormals[i];
  let base = loadVector(baseRef, i);
  let data = contactData[i];
  let z = (data.x - dot(base, normal.xyz)) / op.scale;
  var start = select(vec3<f32>(0.0), z * normal.xyz, normal.w > 0.0);
  if (normal.w > 1.5) {
    let u = colliderVelocity(colliders[u32(data.z)], loadVector(xRef, i));
    start = (u + (data.x - dot(u, normal.xyz)) * normal.xyz - base) / op.scale;
  }
  storeVector(solutionRef, i, start);
}

// Particle i's contact at (x, v): n and (T, gap, collider, λ = 0), or zeros.
fn detectAt(i: u32) {
  var normal = vec4<f32>(0.0);
  var data = vec4<f32>(0.0);
  if (particleInvMass[i] > 0.0) {
    let x = loadVector(xRef, i);
    let v = loadVector(vRef, i);
    let slack = surfaceSlack * (1.0 + max(max(abs(x.x), abs(x.y)), abs(x.z)));
    let released = contactData[i].w < 0.0;  // its last λ pulled inwards
    let held = contactNormals[i].w > 0.0 && !released;
    let c = detectContact(x, v, slack, select(-1, i32(contactData[i].z), held));
    if (c.collider >= 0) {
      let u = colliderVelocity(colliders[c.collider], x);
      let vn = dot(v - u, c.normal);
      let free = !held && c.gap >= -slack && (released || vn > receding * op.h * op.gravity);
      if (!free) {
        normal = vec4<f32>(c.normal, select(1.0, 2.0, stick == 1u && colliders[c.collider].friction > 0.0));
        data = vec4<f32>(dot(u, c.normal) - max(c.gap, 0.0) / op.h, c.gap, f32(c.collider), 0.0);
      }
    }
  }
  contactNormals[i] = normal;
  contactData[i] = data;
}

// The deepest collider x touches or is behind (gap ≤ slack), or reaches in free flight within the
// step, g + h ((v − u)·n + h g_grav·n) < 0, or (collider `held`, −1: none) is within
// h (|v| + max |u|) + h² |g_grav| of (CpuContacts.contactOf).
fn detectContact(x: vec3<f32>, v: vec3<f32>, slack: f32, held: i32) -> Contact {
  let heldReach = op.h * (length(v) + fastestCollider()) + op.h * op.h * op.gravity;
  var best = Contact(-1, 0.0, vec3<f32>(0.0));
  for (var k = 0u; k < colliderCount; k++) {
    let c = colliders[k];
    let d = colliderDistance(c, x);
    let gap = d.w - c.thickness;
    let closing = dot(colliderVelocity(c, x) - v, d.xyz) - op.h * dot(params.gravity, d.xyz);
    let within = gap <= slack || gap < op.h * closing || (i32(k) == held && gap < heldReach);
    if (within && (best.collider < 0 || gap < best.gap)) {
      best = Contact(i32(k), gap, d.xyz);
    }
  }
  return best;
}
