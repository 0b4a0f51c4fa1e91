// Shared by the multigrid kernels (prepended after implicit-common.wgsl; CPU mirror:
// src/backends/cpu/multigrid.ts). A level's operator: (A u)_i = S_i u_i + Σ_{(e, j) at i} E_e (u_i − u_j),
// S and E symmetric 3×3 blocks; on level 0 S_xx = 0 marks a fixed particle, whose row is 0.
// Every level lives in the same four buffers at the offsets the host computed (overrides below).

@group(0) @binding(4) var<storage, read> mgGraph: array<u32>;          // incidence, coarsenings
@group(0) @binding(5) var<storage, read_write> mgNodes: array<vec4<f32>>;  // per node: S (2), D⁻¹ (2)
@group(0) @binding(6) var<storage, read_write> mgEdges: array<vec4<f32>>;  // per edge: E (2)
@group(0) @binding(7) var<storage, read_write> mgVectors: array<vec4<f32>>; // coarse levels' b, x, y

override nodeBase: u32 = 0u;   // this level's first node in mgNodes
override nodeCount: u32 = 0u;
override edgeBase: u32 = 0u;   // this level's first edge in mgEdges
override graphBase: u32 = 0u;  // this level's incidence in mgGraph: n + 1 offsets, then (edge, other) pairs
override onArena: u32 = 0u;    // 1: this level's b, x, y are the arena vectors levelB, levelX, levelY (level 0)
override levelB: u32 = 0u;       // else: their first index in mgVectors
override levelX: u32 = 0u;
override levelY: u32 = 0u;

// A level: where its nodes, edges and incidence are; `arena`: its vectors are the arena's (level 0).
struct Level {
  nodeBase: u32,
  nodeCount: u32,
  edgeBase: u32,
  graphBase: u32,
  arena: bool,
}

// The level of this pipeline's overrides.
fn thisLevel() -> Level {
  return Level(nodeBase, nodeCount, edgeBase, graphBase, onArena == 1u);
}

fn loadOn(level: Level, vector: u32, i: u32) -> vec3<f32> {
  if (level.arena) {
    return loadVector(vector, i);
  }
  return mgVectors[vector + i].xyz;
}

fn storeOn(level: Level, vector: u32, i: u32, value: vec3<f32>) {
  if (level.arena) {
    storeVector(vector, i, value);
  } else {
    mgVectors[vector + i] = vec4<f32>(value, 0.0);
  }
}

fn levelLoad(vector: u32, i: u32) -> vec3<f32> {
  return loadOn(thisLevel(), vector, i);
}

fn levelStore(vector: u32, i: u32, value: vec3<f32>) {
  storeOn(thisLevel(), vector, i, value);
}

// A weighted list in mgGraph (src/model/galerkin-terms.ts): `owners` + 1 offsets, then per term a
// (ref, f32 weight bits) pair; a ref is a fine node (its S block) or EDGE_REF | a fine edge (its E).
const EDGE_REF: u32 = 0x80000000u;

// Σ_t w_t X(ref_t) over owner k's terms: a coarse block of Pᵀ A P as a gather of fine blocks,
// the fine level's nodes and edges at fineNodes and fineEdges in mgNodes and mgEdges.
fn gatherTerms(list: u32, owners: u32, k: u32, fineNodes: u32, fineEdges: u32) -> SymmetricBlock {
  var sum = SymmetricBlock(vec3<f32>(0.0), vec3<f32>(0.0));
  let pairs = list + owners + 1u;
  for (var t = mgGraph[list + k]; t < mgGraph[list + k + 1u]; t++) {
    let term = mgGraph[pairs + 2u * t];
    let w = bitcast<f32>(mgGraph[pairs + 2u * t + 1u]);
    if (term >= EDGE_REF) {
      let e = fineEdges + term - EDGE_REF;
      sum.diagonal += w * mgEdges[2u * e].xyz;
      sum.offDiagonal += w * mgEdges[2u * e + 1u].xyz;
    } else {
      let i = fineNodes + term;
      sum.diagonal += w * mgNodes[4u * i].xyz;
      sum.offDiagonal += w * mgNodes[4u * i + 1u].xyz;
    }
  }
  return sum;
}

fn blockProduct(first: vec4<f32>, second: vec4<f32>, u: vec3<f32>) -> vec3<f32> {
  return symmetricProduct(first.xyz, second.xyz, u);
}

// (A u)_i on a level, u the vector `vector`; 0 for a fixed particle (level 0).
fn productOn(level: Level, vector: u32, i: u32) -> vec3<f32> {
  let s0 = mgNodes[4u * (level.nodeBase + i)];
  if (level.arena && s0.x == 0.0) {
    return vec3<f32>(0.0);
  }
  let ui = loadOn(level, vector, i);
  var y = blockProduct(s0, mgNodes[4u * (level.nodeBase + i) + 1u], ui);
  let pairs = level.graphBase + level.nodeCount + 1u;
  for (var k = mgGraph[level.graphBase + i]; k < mgGraph[level.graphBase + i + 1u]; k++) {
    let e = level.edgeBase + mgGraph[pairs + 2u * k];
    let j = mgGraph[pairs + 2u * k + 1u];
    y += blockProduct(mgEdges[2u * e], mgEdges[2u * e + 1u], ui - loadOn(level, vector, j));
  }
  return y;
}

fn levelProduct(vector: u32, i: u32) -> vec3<f32> {
  return productOn(thisLevel(), vector, i);
}

// One weighted block-Jacobi sweep at node i: y_i = x_i + ω D⁻¹_i (b − A x)_i, or from x = 0
// (fromZero) y_i = ω D⁻¹_i b_i.
fn smoothNode(level: Level, b: u32, x: u32, y: u32, fromZero: bool, omega: f32, i: u32) {
  var xi = vec3<f32>(0.0);
  var r = loadOn(level, b, i);
  if (!fromZero) {
    xi = loadOn(level, x, i);
    r -= productOn(level, x, i);
  }
  let at = 4u * (level.nodeBase + i);
  storeOn(level, y, i, xi + omega * blockProduct(mgNodes[at + 2u], mgNodes[at + 3u], r));
}

// Restriction at coarse node I: Σ_i p_iI r_i over the weighted list `list` (fine node i, p_iI)
// of `coarseCount` coarse nodes, r the fine level's vector `residual`.
fn restrictAt(fine: Level, list: u32, coarseCount: u32, residual: u32, coarse: u32) -> vec3<f32> {
  var sum = vec3<f32>(0.0);
  let pairs = list + coarseCount + 1u;
  for (var t = mgGraph[list + coarse]; t < mgGraph[list + coarse + 1u]; t++) {
    sum += bitcast<f32>(mgGraph[pairs + 2u * t + 1u]) * loadOn(fine, residual, mgGraph[pairs + 2u * t]);
  }
  return sum;
}

// Prolongation at fine node i: Σ_I p_iI x_I over the weighted list `list` (coarse node I, p_iI) of
// the fine level's `fineCount` nodes, x_c at `coarseX` in mgVectors.
fn prolongAt(list: u32, fineCount: u32, coarseX: u32, i: u32) -> vec3<f32> {
  var sum = vec3<f32>(0.0);
  let pairs = list + fineCount + 1u;
  for (var t = mgGraph[list + i]; t < mgGraph[list + i + 1u]; t++) {
    sum += bitcast<f32>(mgGraph[pairs + 2u * t + 1u]) * mgVectors[coarseX + mgGraph[pairs + 2u * t]].xyz;
  }
  return sum;
}
