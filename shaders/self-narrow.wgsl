// Narrow phase (design §2, §3), one thread per primitive: vertex p (its VT pairs) or edge e (its
// EE pairs with e' > e). The same traversal runs twice, the pipeline's `writePairs` choosing:
// - count (false): the primitive's pair count → primCount (integer: the same in any order);
// - write (true), after primCount was scanned into pairOffset: the partners into the slots
//   pairOffset[prim] + j (below P_max), then sorted there by partner id and their records
//   written at pairOffset[prim] + rank; the pair's
//   corners counted per particle for the incidence (fixed particles skipped). A count other than
//   the count pass's sets FLAG_MISMATCH; pairs past P_max set FLAG_PAIRS.
// Pair predicates (design §1, §2), r_q = r + D_P1 + D_P2, D_P the largest reach of a primitive's
// particles: VT when p ∉ T and dist(x_p, T) < r_q; EE when e < e', no shared particle, and
// dist(e, e') < r_q. The query box around a vertex is x_p ± (r + D_p + D_max + ρ_max), around an
// edge g_e ± (r + D_e + D_max + λ_e + λ_max), its cells walked in z, y, x order; an item counts
// only in its own cell (hash collisions and buckets shared by two cells of the box fall out).
// Before the exact distance, a candidate is culled when its bounding sphere (g, ρ) is farther:
// |x − g| − ρ ≥ r_q + 1e-5 (1 + r_q + |x|∞) implies d ≥ r_q (every point of a triangle or segment is
// within ρ of g; the slack is ten times the float32 error of both distances, design §3), so the
// cull never drops a pair the exact test would list. It runs first with r_q's bound r + D_P + D_max
// (before the partner's particles are read), then with r_q.
// With `relative` (the dynamics, src/backends/webgpu/self-contact-ops.ts; CPU mirror:
// CpuSelfContact.listPairs) a pair is listed only when dist(P₁, P₂) < r + max_{i∈P₁, j∈P₂} |m_i − m_j|
// + slack, m_i the move in selfParticle[i].yzw and the slack in selfPairs word SCALAR_SLACK; the
// reach D_i = |m_i − m̄| + slack/2 bounds it (|m_i − m_j| ≤ D_i + D_j − slack), so r_q's culls keep
// every such pair.

@group(0) @binding(6) var<storage, read> selfGrid: array<u32>;
@group(0) @binding(7) var<storage, read_write> selfPairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> selfParticle: array<vec4<f32>>;

override writePairs: bool = false;
override relative: bool = false;
const SCALAR_SLACK: u32 = 4u;  // bits of the relative predicate's slack, m (self-pair-common.wgsl)

fn moveOf(i: u32) -> vec3<f32> {
  return selfParticle[i].yzw;
}

// The listing bound of a pair with r_q: r_q, or with `relative` r + max |m_i − m_j| + slack over
// i ∈ {a.x, a.y} (a.y = a.x for a vertex) and j ∈ b.
fn pairBound(rq: f32, a: vec2<u32>, b: vec3<u32>) -> f32 {
  if (!relative) {
    return rq;
  }
  var most = 0.0;
  for (var k = 0u; k < 2u; k++) {
    let m = moveOf(a[k]);
    most = max(most, max(max(length(m - moveOf(b.x)), length(m - moveOf(b.y))), length(m - moveOf(b.z))));
  }
  return selfDetect.thickness + most + maximum(SCALAR_SLACK);
}

struct Query {
  lo: vec3<i32>,    // first cell
  cells: vec3<u32>, // cells per axis, ≤ QUERY_CELLS
}

fn maximum(word: u32) -> f32 {
  return bitcast<f32>(atomicLoad(&selfPairs[word]));
}

fn reachOf(i: u32) -> f32 {
  return selfParticle[i].x;
}

// Whether item `item`'s bounding sphere (selfParticle[n + item]) is beyond r_q of the sphere (x, ρ).
fn culled(item: u32, x: vec3<f32>, radius: f32, rq: f32) -> bool {
  let sphere = selfParticle[selfDetect.particleCount + item];
  let a = abs(x);
  let slack = 1e-5 * (1.0 + rq + max(max(a.x, a.y), a.z));
  return length(x - sphere.xyz) - sphere.w - radius >= rq + slack;
}

// The cells of the box center ± halfWidth, widened by a slack of 1e-4 c_s + 1e-6 |center|∞ (more
// cells never change the pairs); an axis of more than QUERY_CELLS cells sets FLAG_QUERY and is cut.
fn queryBox(center: vec3<f32>, halfWidth: f32) -> Query {
  let size = maximum(SCALAR_CELL_SIZE);
  let a = abs(center);
  let w = vec3<f32>(halfWidth + 1e-4 * size + 1e-6 * max(max(a.x, a.y), a.z));
  let lo = floor((center - w) / size);
  let span = floor((center + w) / size) - lo + 1.0;
  let fits = span <= vec3<f32>(f32(QUERY_CELLS));
  if (!all(fits)) {
    atomicOr(&selfPairs[SCALAR_FLAGS], FLAG_QUERY);
  }
  return Query(vec3<i32>(lo), select(vec3<u32>(QUERY_CELLS), vec3<u32>(span), fits));
}

// The range [x, y) of bucket `key` in the sorted items.
fn bucketRange(key: u32) -> vec2<u32> {
  return vec2<u32>(selfGrid[selfDetect.gridStart + key], selfGrid[selfDetect.gridStart + key + 1u]);
}

// Item `slot` of the sorted items if its own cell is `cell`, else 0xffffffff.
fn itemIn(slot: u32, cell: vec3<i32>) -> u32 {
  let at = selfDetect.gridItems + 4u * slot;
  let own = bitcast<vec3<i32>>(vec3<u32>(selfGrid[at + 1u], selfGrid[at + 2u], selfGrid[at + 3u]));
  return select(0xffffffffu, selfGrid[at], all(own == cell));
}

// A listed partner: the j-th is written to its slot in the write pass, within `limit`.
fn list(partner: u32, base: u32, j: u32, limit: u32) {
  if (writePairs && j < limit) {
    atomicStore(&selfPairs[selfDetect.slots + base + j], partner);
  }
}

// Vertex p's VT pairs: triangles T ∌ p with dist(x_p, T) < r + D_p + max(D_a, D_b, D_c).
fn vertexPairs(p: u32, base: u32, limit: u32) -> u32 {
  let x = loadVector(xRef, p);
  let reach = selfDetect.thickness + reachOf(p);
  let reachMax = maximum(SCALAR_REACH);
  let q = queryBox(x, reach + reachMax + maximum(SCALAR_TRIANGLE_RADIUS));
  var found = 0u;
  for (var k = 0u; k < q.cells.z; k++) {
    for (var j = 0u; j < q.cells.y; j++) {
      for (var i = 0u; i < q.cells.x; i++) {
        let cell = q.lo + vec3<i32>(vec3<u32>(i, j, k));
        let range = bucketRange(2u * bucketOf(cell));
        for (var s = range.x; s < range.y; s++) {
          let triangle = itemIn(s, cell);
          if (triangle == 0xffffffffu || culled(triangle, x, 0.0, reach + reachMax)) {
            continue;
          }
          let c = triangleCorners(triangle);
          if (any(c == vec3<u32>(p))) {
            continue;
          }
          let rq = reach + max(max(reachOf(c.x), reachOf(c.y)), reachOf(c.z));
          if (culled(triangle, x, 0.0, rq)) {
            continue;
          }
          if (pointTriangleDistance(x, loadVector(xRef, c.x), loadVector(xRef, c.y), loadVector(xRef, c.z)) < pairBound(rq, vec2<u32>(p), c)) {
            list(triangle, base, found, limit);
            found++;
          }
        }
      }
    }
  }
  return found;
}

// Edge e's EE pairs: edges e' > e sharing no particle with dist(e, e') < r + D_e + D_e'.
fn edgePairs(e: u32, base: u32, limit: u32) -> u32 {
  let ends = edgeEnds(e);
  let p1 = loadVector(xRef, ends.x);
  let q1 = loadVector(xRef, ends.y);
  let reach = selfDetect.thickness + max(reachOf(ends.x), reachOf(ends.y));
  let g = 0.5 * (p1 + q1);
  let radius = 0.5 * length(q1 - p1);
  let reachMax = maximum(SCALAR_REACH);
  let q = queryBox(g, reach + reachMax + radius + maximum(SCALAR_EDGE_RADIUS));
  let t = selfDetect.triangleCount;
  var found = 0u;
  for (var k = 0u; k < q.cells.z; k++) {
    for (var j = 0u; j < q.cells.y; j++) {
      for (var i = 0u; i < q.cells.x; i++) {
        let cell = q.lo + vec3<i32>(vec3<u32>(i, j, k));
        let range = bucketRange(2u * bucketOf(cell) + 1u);
        for (var s = range.x; s < range.y; s++) {
          let item = itemIn(s, cell);
          if (item == 0xffffffffu || item - t <= e || culled(item, g, radius, reach + reachMax)) {
            continue;
          }
          let other = edgeEnds(item - t);
          if (any(vec4<u32>(ends, ends) == vec4<u32>(other.x, other.x, other.y, other.y))) {
            continue;
          }
          let rq = reach + max(reachOf(other.x), reachOf(other.y));
          if (culled(item, g, radius, rq)) {
            continue;
          }
          if (segmentDistance(p1, q1, loadVector(xRef, other.x), loadVector(xRef, other.y)) < pairBound(rq, ends, other.xyy)) {
            list(item - t, base, found, limit);
            found++;
          }
        }
      }
    }
  }
  return found;
}

// The record of pair `slot`: four particles (VT: p, a, b, c; EE: p1, q1, p2, q2 as stored, kind
// in bit 31 of the first), (primitive, partner); its corners counted for the incidence.
fn record(prim: u32, partner: u32, slot: u32) {
  let n = selfDetect.particleCount;
  var ids: vec4<u32>;
  var kind = 0u;
  if (prim < n) {
    ids = vec4<u32>(prim, triangleCorners(partner));
  } else {
    ids = vec4<u32>(edgeEnds(prim - n), edgeEnds(partner));
    kind = KIND_EDGE_EDGE;
  }
  let at = selfDetect.pairs + 4u * slot;
  for (var c = 0u; c < 4u; c++) {
    atomicStore(&selfPairs[at + c], ids[c] | select(0u, kind, c == 0u));
    if (selfTopology[selfDetect.fixedBase + ids[c]] == 0u) {
      atomicAdd(&selfPairs[selfDetect.incCount + ids[c]], 1u);
    }
  }
  atomicStore(&selfPairs[selfDetect.partners + 2u * slot], select(prim, prim - n, prim >= n));
  atomicStore(&selfPairs[selfDetect.partners + 2u * slot + 1u], partner);
}

// The `listed` partners in the slots from `base` (this thread's alone) sorted by insertion in
// place (ids are distinct), then recorded in that order.
fn sortRecords(prim: u32, base: u32, listed: u32) {
  let start = selfDetect.slots + base;
  for (var k = 1u; k < listed; k++) {
    let partner = atomicLoad(&selfPairs[start + k]);
    var at = k;
    while (at > 0u && atomicLoad(&selfPairs[start + at - 1u]) > partner) {
      atomicStore(&selfPairs[start + at], atomicLoad(&selfPairs[start + at - 1u]));
      at--;
    }
    atomicStore(&selfPairs[start + at], partner);
  }
  for (var k = 0u; k < listed; k++) {
    record(prim, atomicLoad(&selfPairs[start + k]), base + k);
  }
}

@compute @workgroup_size(workgroupSize)
fn selfNarrowMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let prim = selfThread(id, groups);
  let n = selfDetect.particleCount;
  if (prim >= n + selfDetect.edgeCount) {
    return;
  }
  let capacity = selfDetect.pairCapacity;
  var base = 0u;
  var expected = 0u;
  var limit = 0u;
  if (writePairs) {
    base = atomicLoad(&selfPairs[selfDetect.pairOffset + prim]);
    expected = atomicLoad(&selfPairs[selfDetect.primCount + prim]);
    limit = min(expected, capacity - min(base, capacity));
  }
  var count: u32;
  if (prim < n) {
    count = vertexPairs(prim, base, limit);
  } else {
    count = edgePairs(prim - n, base, limit);
  }
  if (!writePairs) {
    atomicStore(&selfPairs[selfDetect.primCount + prim], count);
    return;
  }
  if (count != expected) {
    atomicOr(&selfPairs[SCALAR_FLAGS], FLAG_MISMATCH);
  }
  if (expected > limit) {
    atomicOr(&selfPairs[SCALAR_FLAGS], FLAG_PAIRS);
  }
  sortRecords(prim, base, min(count, limit));
}
