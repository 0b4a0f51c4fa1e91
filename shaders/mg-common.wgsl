// Shared by the multigrid kernels (prepended after implicit-common.wgsl; CPU mirror:
// src/backends/cpu/multigrid.ts). A level's operator: (A u)_i = S_i u_i + Σ_{(e, j) at i} E_e (u_i − u_j),
// S and E symmetric 3×3 blocks; S_xx = 0 marks a fixed particle (level 0), whose row is 0.
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

fn levelLoad(vector: u32, i: u32) -> vec3<f32> {
  if (onArena == 1u) {
    return loadVector(vector, i);
  }
  return mgVectors[vector + i].xyz;
}

fn levelStore(vector: u32, i: u32, value: vec3<f32>) {
  if (onArena == 1u) {
    storeVector(vector, i, value);
  } else {
    mgVectors[vector + i] = vec4<f32>(value, 0.0);
  }
}

fn blockProduct(first: vec4<f32>, second: vec4<f32>, u: vec3<f32>) -> vec3<f32> {
  return symmetricProduct(first.xyz, second.xyz, u);
}

// (A u)_i on this level, u the vector `vector`; 0 for a fixed particle.
fn levelProduct(vector: u32, i: u32) -> vec3<f32> {
  let s0 = mgNodes[4u * (nodeBase + i)];
  if (s0.x == 0.0) {
    return vec3<f32>(0.0);
  }
  let ui = levelLoad(vector, i);
  var y = blockProduct(s0, mgNodes[4u * (nodeBase + i) + 1u], ui);
  let pairs = graphBase + nodeCount + 1u;
  for (var k = mgGraph[graphBase + i]; k < mgGraph[graphBase + i + 1u]; k++) {
    let e = edgeBase + mgGraph[pairs + 2u * k];
    let j = mgGraph[pairs + 2u * k + 1u];
    y += blockProduct(mgEdges[2u * e], mgEdges[2u * e + 1u], ui - levelLoad(vector, j));
  }
  return y;
}
