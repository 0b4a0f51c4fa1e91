// Self-collision detection (reports/design/self-collision.md §2, §3), shared by the self-*.wgsl
// kernels: prepended after common.wgsl (and program-vectors.wgsl where a kernel reads x or v).
// Items of the broad phase: triangles 0 … t − 1 keyed by their centroid, then edges t … t + e − 1
// keyed by their midpoint; a key is 2 H + kind (kind 0 triangle, 1 edge), H the Teschner hash of
// the item's cell. Primitives of the narrow phase: vertices 0 … n − 1 (their VT pairs), then
// edges n … n + e − 1 (their EE pairs with a larger edge). Regions of the u32 buffers start at
// the offsets (in u32 words) of SelfDetect, written by the host (self-contact-detect.ts);
// selfParticle (vec4) holds per particle (D_i, 0, 0, 0) [n], then per item its bounding sphere
// (g, ρ or λ) [t + e]. The cell size is the step's (self-keys.wgsl), in selfPairs word
// SCALAR_CELL_SIZE.

struct SelfDetect {
  h: f32,              // the step, s
  gravity: f32,        // |g|, m/s²
  thickness: f32,      // r, m
  cellSize: f32,       // c_s, m, fixed by the host; 0: the step's, 2 (r + D_max + max(ρ_max, λ_max))
  particleCount: u32,  // n
  triangleCount: u32,  // t
  edgeCount: u32,      // e
  tableSize: u32,      // T, buckets of the hash
  pairCapacity: u32,   // P_max
  edgeBase: u32,       // selfTopology: triangles [3t] at 0, edges [2e] here, fixed flags [n] at fixedBase
  fixedBase: u32,
  gridCount: u32,      // selfGrid: count [2T] (zero between detections)
  gridStart: u32,      //           start [2T + 1], the exclusive scan of count
  gridKeys: u32,       //           per item (key, cell.x, cell.y, cell.z) [4 (t + e)]
  gridItems: u32,      //           the items sorted by key, (item, cell) [4 (t + e)]
  primCount: u32,      // selfPairs: pairs per primitive [n + e]
  pairOffset: u32,     //            exclusive scan of primCount [n + e + 1]; the last is P
  slots: u32,          //            unsorted partners [P_max], then the incidence's scatter [4 P_max]
  pairs: u32,          //            per pair its four particles [4 P_max], kind in bit 31 of the first
  partners: u32,       //            per pair (primitive, partner) [2 P_max] (an edge's own index)
  incCount: u32,       //            pair corners per particle [n] (zero between detections)
  incStart: u32,       //            exclusive scan of incCount [n + 1]
  incSorted: u32,      //            per particle, 4 pair + corner ascending [4 P_max]
  reverseThreads: u32, // 1: threads take their work in reverse order (determinism tests)
}

// selfPairs words 0 … 3: the sticky flags, then the bits of the per-step maxima D_max, ρ_max, λ_max
// (non-negative f32s, whose bit patterns order as their values: atomicMax is exact in any order);
// word 9: the bits of the step's cell size c_s (words 4 … 8 are the dynamics', self-pair-common.wgsl).
const SCALAR_FLAGS: u32 = 0u;
const SCALAR_REACH: u32 = 1u;
const SCALAR_TRIANGLE_RADIUS: u32 = 2u;
const SCALAR_EDGE_RADIUS: u32 = 3u;
const SCALAR_CELL_SIZE: u32 = 9u;
const FLAG_QUERY: u32 = 1u;      // a query box wider than QUERY_CELLS cells on an axis
const FLAG_PAIRS: u32 = 2u;      // more than P_max pairs
const FLAG_MISMATCH: u32 = 4u;   // the write pass found another count than the count pass
const QUERY_CELLS: u32 = 8u;
const KIND_EDGE_EDGE: u32 = 2147483648u;  // bit 31 of a pair's first particle

@group(0) @binding(4) var<uniform> selfDetect: SelfDetect;
@group(0) @binding(5) var<storage, read> selfTopology: array<u32>;

// This thread's work item: threadIndex, or its mirror over the dispatch's grid when reversed.
fn selfThread(id: vec3<u32>, groups: vec3<u32>) -> u32 {
  let i = threadIndex(id, groups);
  if (selfDetect.reverseThreads == 1u) {
    return groups.x * groups.y * workgroupSize - 1u - i;
  }
  return i;
}

fn triangleCorners(t: u32) -> vec3<u32> {
  return vec3<u32>(selfTopology[3u * t], selfTopology[3u * t + 1u], selfTopology[3u * t + 2u]);
}

fn edgeEnds(e: u32) -> vec2<u32> {
  let base = selfDetect.edgeBase + 2u * e;
  return vec2<u32>(selfTopology[base], selfTopology[base + 1u]);
}

// The cell of a key point, floor(g / c_s) (design §2).
fn cellOf(g: vec3<f32>, size: f32) -> vec3<i32> {
  return vec3<i32>(floor(g / size));
}

// Teschner et al. 2003: H = ((i·73856093) ^ (j·19349663) ^ (k·83492791)) mod T, wrapping u32.
fn bucketOf(cell: vec3<i32>) -> u32 {
  let c = bitcast<vec3<u32>>(cell);
  return ((c.x * 73856093u) ^ (c.y * 19349663u) ^ (c.z * 83492791u)) % selfDetect.tableSize;
}

// The point of segment uv nearest x: u + s (v − u), s = clamp((x − u)·(v − u) / |v − u|²), 0 on a
// segment of length 0; returns (s, |x − that point|²).
fn segmentNearest(x: vec3<f32>, u: vec3<f32>, v: vec3<f32>) -> vec2<f32> {
  let d = v - u;
  let dd = dot(d, d);
  var s = 0.0;
  if (dd > 0.0) {
    s = clamp(dot(x - u, d) / dd, 0.0, 1.0);
  }
  let gap = (x - u) - s * d;
  return vec2<f32>(s, dot(gap, gap));
}

// A crushed triangle's nearest point: the nearest of the projections onto ab, bc, ca (the first
// wins a tie), as barycentrics.
fn nearestEdgeBary(x: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
  let ab = segmentNearest(x, a, b);
  let bc = segmentNearest(x, b, c);
  let ca = segmentNearest(x, c, a);
  var best = vec3<f32>(1.0 - ab.x, ab.x, 0.0);
  var nearest = ab.y;
  if (bc.y < nearest) {
    best = vec3<f32>(0.0, 1.0 - bc.x, bc.x);
    nearest = bc.y;
  }
  if (ca.y < nearest) {
    best = vec3<f32>(ca.x, 0.0, 1.0 - ca.x);
  }
  return best;
}

// Ericson, Real-Time Collision Detection §5.1.5, returning (α, β, γ), α + β + γ = 1 (CPU mirror:
// vertexTriangleClosest, src/model/self-contact-geometry.ts): a crushed triangle, |ab × ac|² ≤
// 1e-9 |ab|² |ac|² (DEGENERATE_AREA_RATIO), first, as its nearest edge; then the Voronoi regions
// of the corners and edges; else the face, (v_a, v_b, v_c) / (v_a + v_b + v_c).
fn closestBary(x: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
  let ab = b - a;
  let ac = c - a;
  let normal = cross(ab, ac);
  if (!(dot(normal, normal) > 1e-9 * dot(ab, ab) * dot(ac, ac))) {
    return nearestEdgeBary(x, a, b, c);
  }
  let ap = x - a;
  let d1 = dot(ab, ap);
  let d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return vec3<f32>(1.0, 0.0, 0.0);
  }
  let bp = x - b;
  let d3 = dot(ab, bp);
  let d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {
    return vec3<f32>(0.0, 1.0, 0.0);
  }
  let vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    let s = d1 / (d1 - d3);
    return vec3<f32>(1.0 - s, s, 0.0);
  }
  let cp = x - c;
  let d5 = dot(ab, cp);
  let d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) {
    return vec3<f32>(0.0, 0.0, 1.0);
  }
  let vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    let s = d2 / (d2 - d6);
    return vec3<f32>(1.0 - s, 0.0, s);
  }
  let va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    let s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return vec3<f32>(0.0, 1.0 - s, s);
  }
  let sum = va + vb + vc;
  return vec3<f32>(va / sum, vb / sum, vc / sum);
}

// |x − q|, q = α a + β b + γ c the triangle's closest point.
fn pointTriangleDistance(x: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> f32 {
  let w = closestBary(x, a, b, c);
  return length(x - (w.x * a + w.y * b + w.z * c));
}

// Ericson §5.1.9 (as Warp's closest_point_edge_edge; CPU mirror: edgeEdgeClosest): (s, t) of the
// closest points p1 + s d1 and p2 + t d2, d1 = q1 − p1, d2 = q2 − p2, r = p1 − p2, a = d1·d1,
// e = d2·d2, b = d1·d2, c = d1·r, f = d2·r. An edge with |d|² ≤ 1e-10 max(a, e) is a point; parallel
// when ae − b² ≤ 1e-5 ae (design §3): s = 0, t = clamp(f/e), s = clamp((bt − c)/a); otherwise
// s = clamp((bf − ce)/(ae − b²)), t = (bs + f)/e, and t clamped to [0, 1] with s recomputed.
fn closestSegments(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> vec2<f32> {
  let d1 = q1 - p1;
  let d2 = q2 - p2;
  let r = p1 - p2;
  let a = dot(d1, d1);
  let e = dot(d2, d2);
  let f = dot(d2, r);
  let point = 1e-10 * max(a, e);
  if (a <= point) {
    if (e > point) {
      return vec2<f32>(0.0, clamp(f / e, 0.0, 1.0));
    }
    return vec2<f32>(0.0, 0.0);
  }
  let c = dot(d1, r);
  if (e <= point) {
    return vec2<f32>(clamp(-c / a, 0.0, 1.0), 0.0);
  }
  let b = dot(d1, d2);
  let denom = a * e - b * b;
  if (!(denom > 1e-5 * a * e)) {
    let t = clamp(f / e, 0.0, 1.0);
    return vec2<f32>(clamp((b * t - c) / a, 0.0, 1.0), t);
  }
  var s = clamp((b * f - c * e) / denom, 0.0, 1.0);
  var t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = clamp((b - c) / a, 0.0, 1.0);
  }
  return vec2<f32>(s, t);
}

// |c1 − c2| = |r + s d1 − t d2| at the closest points of segments p1q1 and p2q2.
fn segmentDistance(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> f32 {
  let st = closestSegments(p1, q1, p2, q2);
  return length((p1 - p2) + st.x * (q1 - p1) - st.y * (q2 - p2));
}
