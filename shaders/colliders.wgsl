// Colliders (CPU mirror: src/model/colliders.ts): signed distance φ(x) and outward unit normal
// n = ∇φ of planes, spheres, capsules and axis-aligned boxes (the standard closed forms; inside a
// box, the nearest face) and triangle meshes (the nearest triangle through a bounding-volume
// hierarchy, signed by angle-weighted pseudonormals: src/model/mesh-collider.ts, whose traversal
// this one follows node by node), and a point's deepest contact, gap = φ − thickness. Kinematic colliders
// (src/model/collider-pose.ts) move at velocityP (p) and velocityQ (q: a capsule's end b); their
// surface velocity u enters every contact as v − u.

struct Collider {
  shape: u32,      // 0 plane, 1 sphere, 2 capsule, 3 box, 4 mesh (COLLIDER_SHAPES)
  friction: f32,   // Coulomb μ
  thickness: f32,  // m: particles are kept this far outside
  radius: f32,     // m: sphere, capsule
  root: u32,       // mesh: its root node in meshData
  p: vec3<f32>,    // plane: a point; sphere, box: centre; capsule: end a; mesh: offset
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

// Every mesh collider's hierarchy, then every triangle (src/backends/webgpu/mesh-data.ts writes
// it): node k is vec4s 2k (lower, first) and 2k + 1 (upper, count) — first a leaf's first
// triangle or an inner node's right child, count 0 for an inner node (u32s in the w lanes);
// triangle t is the 10 vec4s from meshTriangleBase + 10 t: corners a, b, c, then the
// pseudonormals of its face, edges ab, bc, ca and vertices a, b, c.
override meshTriangleBase: u32 = 0u;
const MESH_STACK = 32u;  // MESH_STACK of src/model/mesh-collider.ts: the deepest hierarchy
@group(0) @binding(9) var<storage, read> meshData: array<vec4<f32>>;

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
  if (c.shape == 4u) {
    return meshDistance(c.root, x - c.p);
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

// Squared distance from x to node k's box (0 inside it).
fn nodeDistance2(k: u32, x: vec3<f32>) -> f32 {
  let out = max(max(meshData[2u * k].xyz - x, vec3<f32>(0.0)), x - meshData[2u * k + 1u].xyz);
  return dot(out, out);
}

// The closest point of triangle (a, b, c) to x (xyz) and its feature (w): 0 the face, 1–3 the
// edges ab, bc, ca, 4–6 the vertices a, b, c (closestOnTriangle; Ericson 2005 §5.1.5).
fn closestOnTriangle(x: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec4<f32> {
  let ab = b - a;
  let ac = c - a;
  let d1 = dot(ab, x - a);
  let d2 = dot(ac, x - a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return vec4<f32>(a, 4.0);
  }
  let d3 = dot(ab, x - b);
  let d4 = dot(ac, x - b);
  if (d3 >= 0.0 && d4 <= d3) {
    return vec4<f32>(b, 5.0);
  }
  let vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    return vec4<f32>(a + (d1 / (d1 - d3)) * ab, 1.0);
  }
  let d5 = dot(ab, x - c);
  let d6 = dot(ac, x - c);
  if (d6 >= 0.0 && d5 <= d6) {
    return vec4<f32>(c, 6.0);
  }
  let vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    return vec4<f32>(a + (d2 / (d2 - d6)) * ac, 3.0);
  }
  let va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    return vec4<f32>(b + ((d4 - d3) / (d4 - d3 + (d5 - d6))) * (c - b), 2.0);
  }
  let denominator = 1.0 / (va + vb + vc);
  return vec4<f32>(a + ab * (vb * denominator) + ac * (vc * denominator), 0.0);
}

// (n, φ) of the mesh whose hierarchy starts at node `root`, at x in its frame (meshDistance):
// depth first, the nearer child first (the left one on a tie), a node pruned unless its box is
// nearer than the best triangle so far.
fn meshDistance(root: u32, x: vec3<f32>) -> vec4<f32> {
  var best = 3.4e38;
  var record = 0u;
  var point = vec3<f32>(0.0);
  var stack: array<u32, MESH_STACK>;
  stack[0] = root;
  var top = 1u;
  while (top > 0u) {
    top -= 1u;
    let node = stack[top];
    if (!(nodeDistance2(node, x) < best)) {
      continue;
    }
    let first = bitcast<u32>(meshData[2u * node].w);
    let count = bitcast<u32>(meshData[2u * node + 1u].w);
    if (count > 0u) {
      for (var t = first; t < first + count; t++) {
        let r = meshTriangleBase + 10u * t;
        let closest = closestOnTriangle(x, meshData[r].xyz, meshData[r + 1u].xyz, meshData[r + 2u].xyz);
        let d = x - closest.xyz;
        if (dot(d, d) < best) {
          best = dot(d, d);
          record = r + 3u + u32(closest.w);
          point = closest.xyz;
        }
      }
      continue;
    }
    let nearLeft = nodeDistance2(node + 1u, x) <= nodeDistance2(first, x);
    stack[top] = select(node + 1u, first, nearLeft);
    stack[top + 1u] = select(first, node + 1u, nearLeft);
    top += 2u;
  }
  let pseudo = meshData[record].xyz;
  let d = x - point;
  let l = sqrt(best);
  let s = select(1.0, -1.0, dot(d, pseudo) < 0.0);
  if (!(l > 0.0)) {
    return vec4<f32>(pseudo, 0.0);
  }
  return vec4<f32>((s / l) * d, s * l);
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
