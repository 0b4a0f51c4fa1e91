// Self-collision fail-safe, each listed pair's separating plane (CPU mirror: pairPlanes,
// src/backends/cpu/self-fail-safe.ts), one thread per pair on the per-particle grid. At the
// step's start x₀ the closest points give n̂ (from the second side B to the first A) and d₀; the
// plane n̂ · y = n̂ · q_B + λ d₀ (q_B = −Σ_{j∈B} w_j x₀_j) splits the gap by how far each side
// approaches along n̂ over the step's whole moves Δx = x − x₀ (the same plane in every sweep):
//   λ = clamp(δ_B / (δ_A + δ_B), 0.05, 0.95), 0.5 when neither approaches;
// a side with a fixed particle gets the room it moves, δ / (0.85 d₀) of d₀ (`pinched` when it
// needs ≥ 0.95). A pair closer than 4e-5 (1 + |x₀|∞) at the start is frozen: its particles may
// only move apart. Writes pairTerms[4e] = (n̂, level), pairTerms[4e + 1].x = 1 when frozen.

const RELAXATION: f32 = 0.85;
const FREEZE: f32 = 4e-5;

@group(0) @binding(6) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(7) var<storage, read> particleInvMass: array<f32>;
@group(0) @binding(8) var<storage, read_write> pairTerms: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> selfControl: array<atomic<u32>>;

@compute @workgroup_size(workgroupSize)
fn selfFailPlanesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let count = pairCount();
  for (var e = threadIndex(id, groups); e < count; e += pairStride(groups)) {
    planeOf(e);
  }
}

fn planeOf(e: u32) {
  let geometry = pairGeometry(startRef, e, true);
  let d0 = geometry.d;
  let n = geometry.n;
  let frozen = d0 < FREEZE * (1.0 + extent());
  if (frozen) {
    atomicAdd(&selfControl[CONTROL_FROZEN], 1u);
  }
  let ids = pairParticles(e);
  let split = firstSide(e);
  var deltaA = 0.0;
  var deltaB = 0.0;
  var levelB = 0.0;
  var fixedA = false;
  var fixedB = false;
  for (var j = 0u; j < 4u; j++) {
    let x0 = loadVector(startRef, ids[j]);
    let along = dot(n, loadVector(xRef, ids[j]) - x0);
    let fixed = particleInvMass[ids[j]] == 0.0;
    if (j < split) {
      deltaA = max(deltaA, -along);
      fixedA = fixedA || fixed;
    } else {
      deltaB = max(deltaB, along);
      fixedB = fixedB || fixed;
      levelB -= geometry.w[j] * dot(n, x0);
    }
  }
  var lambda = 0.5;
  if (deltaA + deltaB > 0.0) {
    lambda = clamp(deltaB / (deltaA + deltaB), 0.05, 0.95);
  }
  let needA = deltaA / (RELAXATION * d0);
  let needB = deltaB / (RELAXATION * d0);
  if (fixedB) {
    lambda = max(lambda, min(0.95, needB));
  }
  if (fixedA) {
    lambda = min(lambda, 1.0 - min(0.95, needA));
  }
  if ((fixedB && needB >= 0.95) || (fixedA && needA >= 0.95)) {
    atomicAdd(&selfControl[CONTROL_PINCHED], 1u);
  }
  pairTerms[4u * e] = vec4<f32>(n, levelB + lambda * d0);
  pairTerms[4u * e + 1u] = vec4<f32>(select(0.0, 1.0, frozen), 0.0, 0.0, 0.0);
}
