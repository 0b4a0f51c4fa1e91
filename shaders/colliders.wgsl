// Colliders (CPU mirror: src/model/colliders.ts): signed distance φ(x) and outward unit normal
// n = ∇φ of planes, spheres, capsules and axis-aligned boxes (the standard closed forms; inside a
// box, the nearest face), and a point's deepest contact, gap = φ − thickness. Kinematic colliders
// (src/model/collider-pose.ts) move at velocityP (p) and velocityQ (q: a capsule's end b); their
// surface velocity u enters every contact as v − u.

struct Collider {
  shape: u32,      // 0 plane, 1 sphere, 2 capsule, 3 box (COLLIDER_SHAPES)
  friction: f32,   // Coulomb μ
  thickness: f32,  // m: particles are kept this far outside
  radius: f32,     // m: sphere, capsule
  p: vec3<f32>,    // plane: a point; sphere, box: centre; capsule: end a
  q: vec3<f32>,    // plane: unit normal; capsule: end b; box: half extents
  velocityP: vec3<f32>,  // m/s: the velocity of p (0 at rest)
  velocityQ: vec3<f32>,  // m/s: the velocity of q (a capsule's b; 0 for the other shapes)
}

struct Contact {
  collider: i32,     // −1: none
  gap: f32,          // φ − thickness, m
  normal: vec3<f32>,
}

override colliderCount: u32 = 0u;

// read_write: collider-move.wgsl advances the poses; the contact kernels only read them.
@group(0) @binding(4) var<storage, read_write> colliders: array<Collider>;

fn unitOr(d: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
  let l = length(d);
  return select(fallback, d / l, l > 0.0);
}

// (n, φ) of collider c at x.
fn colliderDistance(c: Collider, x: vec3<f32>) -> vec4<f32> {
  let up = vec3<f32>(0.0, 1.0, 0.0);
  if (c.shape == 0u) {
    return vec4<f32>(c.q, dot(x - c.p, c.q));
  }
  if (c.shape == 1u) {
    let d = x - c.p;
    return vec4<f32>(unitOr(d, up), length(d) - c.radius);
  }
  if (c.shape == 2u) {
    // Closest point of the segment: a + t (b − a), t = clamp((x − a)·(b − a) / |b − a|², 0, 1).
    let ab = c.q - c.p;
    let t = clamp(dot(x - c.p, ab) / max(dot(ab, ab), 1e-30), 0.0, 1.0);
    let d = x - (c.p + t * ab);
    return vec4<f32>(unitOr(d, up), length(d) - c.radius);
  }
  let local = x - c.p;
  let q = abs(local) - c.q;
  let s = select(vec3<f32>(1.0), vec3<f32>(-1.0), local < vec3<f32>(0.0));
  let inside = max(q.x, max(q.y, q.z));
  if (inside <= 0.0) {
    // The nearest face (the first of equals, as the CPU's indexOf).
    var n = vec3<f32>(0.0, 0.0, s.z);
    if (q.y == inside) {
      n = vec3<f32>(0.0, s.y, 0.0);
    }
    if (q.x == inside) {
      n = vec3<f32>(s.x, 0.0, 0.0);
    }
    return vec4<f32>(n, inside);
  }
  let out = max(q, vec3<f32>(0.0)) * s;
  return vec4<f32>(unitOr(out, up), length(out));
}

// The deepest contact among gaps below `reach` (nearestContact on the CPU).
fn nearestContact(x: vec3<f32>, reach: f32) -> Contact {
  var best = Contact(-1, 0.0, vec3<f32>(0.0));
  for (var k = 0u; k < colliderCount; k++) {
    let c = colliders[k];
    let d = colliderDistance(c, x);
    let gap = d.w - c.thickness;
    if (gap < reach && (best.collider < 0 || gap < best.gap)) {
      best = Contact(i32(k), gap, d.xyz);
    }
  }
  return best;
}

// The velocity of c's surface point nearest x (colliderVelocity, src/model/collider-pose.ts): a
// capsule's point a + t (b − a) moves at (1 − t) u_a + t u_b, the other shapes at u_p.
fn colliderVelocity(c: Collider, x: vec3<f32>) -> vec3<f32> {
  if (c.shape != 2u) {
    return c.velocityP;
  }
  let ab = c.q - c.p;
  let t = clamp(dot(x - c.p, ab) / max(dot(ab, ab), 1e-30), 0.0, 1.0);
  return mix(c.velocityP, c.velocityQ, t);
}

// The largest speed of any collider's p or q (0 when none moves): a step's reach adds h × it.
fn fastestCollider() -> f32 {
  var top = 0.0;
  for (var k = 0u; k < colliderCount; k++) {
    top = max(top, max(length(colliders[k].velocityP), length(colliders[k].velocityQ)));
  }
  return top;
}

// v − (1 − max(0, 1 − μ Δv_n / |w_t|)) w_t, w = v − u the velocity relative to the surface:
// Coulomb friction of a normal velocity change Δv_n.
fn friction(v: vec3<f32>, u: vec3<f32>, n: vec3<f32>, mu: f32, normalChange: f32) -> vec3<f32> {
  let w = v - u;
  let t = w - dot(w, n) * n;
  let speed = length(t);
  if (speed == 0.0) {
    return v;
  }
  return v - (1.0 - max(0.0, 1.0 - mu * normalChange / speed)) * t;
}
