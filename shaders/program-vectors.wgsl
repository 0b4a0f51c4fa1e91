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
