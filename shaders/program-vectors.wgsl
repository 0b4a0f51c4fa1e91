// The vectors a program names (src/integrators/program.ts), shared by the program kernels:
// reference 0 is the positions buffer (w = 1, drawn from by render pipelines), 1 the velocities,
// k ≥ 2 slot k − 2 of the work-vector arena (`arenaStride` ≥ n vec4 per slot, a multiple of 16, so
// that every slot can also be bound on its own at a 256-byte-aligned offset). A reference comes
// from the pipeline's `override` constants, so each op's pipeline is specialised and the branches
// fold.

override arenaStride: u32 = 0u;  // vec4s per arena slot (set by the executor)

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;   // x, m
@group(0) @binding(2) var<storage, read_write> velocities: array<vec4<f32>>;  // v, m/s
@group(0) @binding(3) var<storage, read_write> arena: array<vec4<f32>>;       // work vectors

fn loadVector(vector: u32, i: u32) -> vec3<f32> {
  if (vector == 0u) {
    return positions[i].xyz;
  }
  if (vector == 1u) {
    return velocities[i].xyz;
  }
  return arena[(vector - 2u) * arenaStride + i].xyz;
}

fn storeVector(vector: u32, i: u32, value: vec3<f32>) {
  if (vector == 0u) {
    positions[i] = vec4<f32>(value, 1.0);
  } else if (vector == 1u) {
    velocities[i] = vec4<f32>(value, 0.0);
  } else {
    arena[(vector - 2u) * arenaStride + i] = vec4<f32>(value, 0.0);
  }
}

// An `eval` op: a = a(x, v) with Rayleigh mass damping r_m (0 when the scheme treats it itself).
// The references x, v, a are the pipeline's overrides xRef, vRef, aRef.
struct EvalOp {
  rayleighMass: f32,   // r_m, 1/s
}
override xRef: u32 = 0u;  // positions evaluated at
override vRef: u32 = 1u;  // velocities evaluated at
override aRef: u32 = 2u;  // where the accelerations are written

// One spring at the evaluation point (the implicit kernels' spring states): 32 bytes hold its
// force f n and its blocks, J_s = k g I + k (1 − g) n nᵀ and c n nᵀ (six numbers against a 3×3 pair).
struct SpringState {
  direction: vec4<f32>,     // xyz: unit n from a to b; w: f, N (force f n on the first endpoint)
  coefficients: vec4<f32>,  // x: k g, N/m; y: k (1 − g), N/m; z: damping c, N·s/m
}

// A spring's state at positions x and velocities v (CPU mirror: src/backends/cpu/implicit-passes.ts
// springStates): d = x_b − x_a, l = |d|, n = d/l, f = k (l − L) + c (v_b − v_a)·n, and
// g = 1 − L/l, clamped at 0 for compressed springs unless `exact` (Choi & Ko 2002); all 0 when l = 0.
fn springStateAt(spring: Spring, x: u32, v: u32, exact: bool) -> SpringState {
  let d = loadVector(x, spring.particleB) - loadVector(x, spring.particleA);
  let l = length(d);
  var n = vec3<f32>(0.0);
  var magnitude = 0.0;
  var g = 0.0;
  if (l > 0.0) {
    n = d / l;
    let closing = dot(loadVector(v, spring.particleB) - loadVector(v, spring.particleA), n);
    magnitude = spring.stiffness * (l - spring.restLength) + spring.damping * closing;
    g = 1.0 - spring.restLength / l;
    if (!exact) {
      g = max(g, 0.0);
    }
  }
  return SpringState(vec4<f32>(n, magnitude), vec4<f32>(spring.stiffness * g, spring.stiffness * (1.0 - g), spring.damping, 0.0));
}
