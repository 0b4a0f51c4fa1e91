// After a constrained solve, one thread per particle (CPU mirror: CpuContacts.respond and
// friction): a particle behind a surface is moved onto it (x), once (its gap is then 0); the
// constraint force λ n, λ = (A s − b)·n (A s in productRef), kept in contactData.w; λ < 0
// (adhesion) releases the contact for the next step, unless the particle was behind the surface by
// more than the slack (its forces were taken where it was, not on the surface: kept as max(λ, 0),
// held with no friction); λ > 0 bounds Coulomb friction on
// v₊ = base + c s (base in vRef) relative to the surface's velocity u by μ ι λ / m, written back
// into s = (v₊ − base)/c (solutionRef). src/integrators/contact-programs.ts derives each scheme's
// c and ι (implicit Euler: 1 and 1). With `release` = 1 the contacts whose pull is a clear part
// of its terms (λ < −releaseMargin (|A s·n| + |b·n|)) leave the solve at once (n.w = 0) for it to resume without them, and nothing is moved yet: the respond after the
// resumed solve moves what was behind (its gap, kept until then, says "behind" to both).
// A sticking contact (n.w = 2, static friction: CpuContacts.slip) is not released so; where its
// whole constraint force f = A s − b leaves the friction cone, |f_t| > μ λ, it slides from here
// on (n.w = 1) and the solve's residual gets back −f_t; sticking, it gets no friction.

struct RespondOp {
  scale: f32,    // c of v₊ = base + c s
  impulse: f32,  // ι, the velocity change per unit λ/m
}

@group(0) @binding(5) var<uniform> op: RespondOp;

override solutionRef: u32 = 0u;  // s
override mode: u32 = 0u;         // 0: λ and friction; 1: λ only; 2: friction only, by the kept λ
override rhsRef: u32 = 0u;       // b
override productRef: u32 = 0u;   // A Δv
override surfaceSlack: f32 = 0.0; // SURFACE_SLACK of src/model/colliders.ts
override release: u32 = 0u;      // 1: released contacts leave this solve now (mode 1 only)
override releaseMargin: f32 = 0.0; // RELEASE_NOW_FRACTION of src/model/colliders.ts
override residualRef: u32 = 0u;  // the solve's r = b − A s: a released contact's −λ n added back

@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;         // 1/kg
@group(0) @binding(7) var<storage, read_write> contactNormals: array<vec4<f32>>;  // n, w = 1: constrained, 2: sticking
@group(0) @binding(8) var<storage, read_write> contactData: array<vec4<f32>>; // T, gap, collider, λ

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
  if (mode != 2u) {
    // Behind by more than rounding (the slack of contact-detect.wgsl's "on the surface").
    let behind = data.y < -surfaceSlack * (1.0 + max(max(abs(x.x), abs(x.y)), abs(x.z)));
    if (release == 0u && data.y < 0.0) {
      storeVector(xRef, i, x - data.y * n);
      data.y = 0.0;
    }
    let product = loadVector(productRef, i);
    let rhs = loadVector(rhsRef, i);
    let force = product - rhs;
    let qn = dot(product, n);
    let bn = dot(rhs, n);
    data.w = qn - bn;
    let tangential = force - data.w * n;
    let sticking = contactNormals[i].w > 1.5;
    let slips = release == 1u && sticking && length(tangential) > c.friction * data.w;
    // A sticking contact that pulls is released only when its tangential force is small (CpuContacts.respond).
    let pulls = !behind && data.w < -releaseMargin * (abs(qn) + abs(bn)) && (!sticking || length(tangential) <= c.friction * abs(data.w));
    // Behind, λ < 0 is no adhesion (CpuContacts.respond says why): 0 holds it, as the CPU's flag.
    if (behind) {
      data.w = max(data.w, 0.0);
    }
    contactData[i] = data;
    // Released now only when its pull is a clear part of its terms (CpuContacts.respond).
    if (slips) {
      contactNormals[i].w = 1.0;
      storeVector(residualRef, i, loadVector(residualRef, i) - tangential);
    }
    if (release == 1u && pulls) {
      contactNormals[i].w = 0.0;
      storeVector(residualRef, i, loadVector(residualRef, i) - (qn - bn) * n);
    }
  }
  let lambda = data.w;
  if (mode == 1u || !(lambda > 0.0) || contactNormals[i].w > 1.5) {
    return;
  }
  let base = loadVector(vRef, i);
  let next = friction(base + op.scale * loadVector(solutionRef, i), u, n, c.friction, op.impulse * lambda * particleInvMass[i]);
  storeVector(solutionRef, i, (next - base) / op.scale);
}
