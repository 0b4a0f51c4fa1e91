// Self-collision dynamics (CPU mirror: CpuSelfContact, src/backends/cpu/self-contact.ts, and
// selfFailSafe, self-fail-safe.ts), shared by the self-pair-*.wgsl and self-fail-*.wgsl kernels:
// prepended after common.wgsl, program-vectors.wgsl and implicit-common.wgsl. The pair list is the
// detection's (self-contact-detect.ts) in its selfPairs buffer, whose offsets (u32 words) come as
// `override` constants; its count P lives on the GPU, so the per-pair passes run on the
// per-particle grid, each thread taking pairs t, t + T, … below min(P, P_max) (as bending's hinges).
// Each kernel declares `selfPairs` (array<u32>).

// A self-contact step: the uniform of the pair kernels (rewritten with h).
struct SelfPairOp {
  h: f32,          // the step, s
  thickness: f32,  // r, m
  stiffness: f32,  // k, N/m
  damping: f32,    // c, N·s/m
  gravity: f32,    // |g|, m/s²
}

override pairsAt: u32 = 0u;       // selfDetect.pairs: four particles per pair, kind in bit 31 of the first
override countAt: u32 = 0u;       // selfDetect.pairOffset + n + e: P
override pairCapacity: u32 = 0u;  // P_max
override incidenceAt: u32 = 0u;   // selfDetect.incStart: the incidence offsets [n + 1]
override entriesAt: u32 = 0u;     // selfDetect.incSorted: per particle 4 pair + corner ascending
override startRef: u32 = 2u;      // self.x0, the positions the step started from

// selfPairs words 4 … 8 (the detection uses 0 … 3): the relative predicate's slack, the mean move
// m̄ (xyz) and |x₀|∞ at the step's start, as f32 bits (self-pair-mean.wgsl writes them).
const SELF_SLACK: u32 = 4u;
const SELF_MEAN: u32 = 5u;
const SELF_EXTENT: u32 = 8u;
// Below this gap (× (1 + |x₀|∞)) a pair's normal is taken from the step's start (CPU NORMAL_EPSILON).
const NORMAL_EPSILON: f32 = 1e-6;

fn pairCount() -> u32 {
  return min(selfPairs[countAt], pairCapacity);
}

fn pairStride(groups: vec3<u32>) -> u32 {
  return groups.x * groups.y * workgroupSize;
}

// Pair e's particles (VT: p, a, b, c; EE: p1, q1, p2, q2).
fn pairParticles(e: u32) -> vec4<u32> {
  let at = pairsAt + 4u * e;
  return vec4<u32>(selfPairs[at] & 0x7fffffffu, selfPairs[at + 1u], selfPairs[at + 2u], selfPairs[at + 3u]);
}

fn pairIsEdgeEdge(e: u32) -> bool {
  return (selfPairs[pairsAt + 4u * e] & 0x80000000u) != 0u;
}

// The corners of side A: [0, 1) for VT, [0, 2) for EE.
fn firstSide(e: u32) -> u32 {
  return select(1u, 2u, pairIsEdgeEdge(e));
}

fn extent() -> f32 {
  return bitcast<f32>(selfPairs[SELF_EXTENT]);
}

// A pair's closest points at one set of positions: weights w (VT 1, −α, −β, −γ; EE 1 − s, s,
// −(1 − t), −t), s = Σ_j w_j x_j and d = |s| (CpuSelfContact.closestWeights).
struct Closest {
  w: vec4<f32>,
  s: vec3<f32>,
  d: f32,
}

fn closestAt(vector: u32, ids: vec4<u32>, edgeEdge: bool) -> Closest {
  let x = array<vec3<f32>, 4>(loadVector(vector, ids.x), loadVector(vector, ids.y), loadVector(vector, ids.z), loadVector(vector, ids.w));
  var w: vec4<f32>;
  if (edgeEdge) {
    let st = closestSegments(x[0], x[1], x[2], x[3]);
    w = vec4<f32>(1.0 - st.x, st.x, -(1.0 - st.y), -st.y);
  } else {
    let b = closestBary(x[0], x[1], x[2], x[3]);
    w = vec4<f32>(1.0, -b.x, -b.y, -b.z);
  }
  let s = w.x * x[0] + w.y * x[1] + w.z * x[2] + w.w * x[3];
  return Closest(w, s, length(s));
}

// The face normal (VT) or e₁ × e₂ (EE) at the start, from the second side to the first
// (CpuSelfContact.fallbackNormal); (0, 1, 0) when degenerate.
fn fallbackNormal(ids: vec4<u32>, edgeEdge: bool) -> vec3<f32> {
  let x = array<vec3<f32>, 4>(loadVector(startRef, ids.x), loadVector(startRef, ids.y), loadVector(startRef, ids.z), loadVector(startRef, ids.w));
  var u = x[2] - x[1];
  var v = x[3] - x[1];
  var other = x[1];
  if (edgeEdge) {
    u = x[1] - x[0];
    v = x[3] - x[2];
    other = x[2];
  }
  let n = cross(u, v);
  if (all(n == vec3<f32>(0.0))) {
    return vec3<f32>(0.0, 1.0, 0.0);
  }
  let sign = select(1.0, -1.0, dot(n, x[0] - other) < 0.0);
  return sign * n / length(n);
}

// Pair e's weights, unit normal n (from the second side to the first) and gap d at `vector`
// (CpuSelfContact.pairGeometry): below NORMAL_EPSILON (1 + |x₀|∞) n is the start's (unless
// `atStart`), then the fallback.
struct PairGeometry {
  w: vec4<f32>,
  n: vec3<f32>,
  d: f32,
}

fn pairGeometry(vector: u32, e: u32, atStart: bool) -> PairGeometry {
  let ids = pairParticles(e);
  let edgeEdge = pairIsEdgeEdge(e);
  let c = closestAt(vector, ids, edgeEdge);
  let scale = NORMAL_EPSILON * (1.0 + extent());
  if (c.d > scale) {
    return PairGeometry(c.w, c.s / c.d, c.d);
  }
  if (!atStart) {
    let s = closestAt(startRef, ids, edgeEdge);
    if (s.d > scale) {
      return PairGeometry(c.w, s.s / s.d, c.d);
    }
  }
  return PairGeometry(c.w, fallbackNormal(ids, edgeEdge), c.d);
}

// The fail-safe's control words (selfControl, u32; self-fail-*.wgsl), read back as the step's
// SelfContactStats: settled, changed (a move shortened in this sweep), sweeps, frozen, pinched,
// truncated, undone, and the pairs listed at the step's start.
const CONTROL_SETTLED: u32 = 0u;
const CONTROL_CHANGED: u32 = 1u;
const CONTROL_SWEEPS: u32 = 2u;
const CONTROL_FROZEN: u32 = 3u;
const CONTROL_PINCHED: u32 = 4u;
const CONTROL_TRUNCATED: u32 = 5u;
const CONTROL_UNDONE: u32 = 6u;
const CONTROL_PAIRS: u32 = 7u;
const CONTROL_WORDS: u32 = 8u;
