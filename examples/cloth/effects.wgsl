// What the demo adds after every solver step (app-side: Weft has no external forces or
// contacts), one thread per particle:
//   wind:    Δv = min(c h, 1) ((w − v)·n) n    drag along the cloth's normal n towards the wind
//            velocity w (gusting in time and space); c is a drag rate, 1/s
//   contact: x is moved to the closest point at distance ε outside the sphere and above the floor;
//            the velocity loses its inward normal part, and its tangential part is scaled by 1 − μ
// Every velocity change Δv is added to the momentum too (p += m Δv) for the integrator that keeps
// one (variational-symplectic-implicit), so that the next step sees it. Pinned particles (m = 0)
// are left alone.

struct Effects {
  sphereCenter: vec3<f32>,  // m
  sphereRadius: f32,        // m; 0: no sphere
  wind: vec3<f32>,          // mean wind velocity, m/s
  windDrag: f32,            // c, 1/s
  h: f32,                   // the solver's step, s
  floorHeight: f32,         // m
  thickness: f32,           // ε, m
  friction: f32,            // μ, fraction of the tangential velocity lost per step in contact
  time: f32,                // s, phase of the gusts
  particleCount: u32,
  hasMomenta: u32,          // 1: `momenta` is part of the integrator's state
}

override workgroupSize: u32 = 64;

@group(0) @binding(0) var<uniform> effects: Effects;
@group(0) @binding(1) var<storage, read> normals: array<vec4<f32>>;        // from normals.wgsl, last frame
@group(0) @binding(2) var<storage, read> particleMass: array<f32>;         // kg; 0: pinned
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;   // the solver's, m
@group(0) @binding(4) var<storage, read_write> velocities: array<vec4<f32>>;  // the solver's, m/s
@group(0) @binding(5) var<storage, read_write> momenta: array<vec4<f32>>;     // the solver's, kg·m/s

// Pushes (x, v) out of a half-space {dot(x − origin, n) < ε}; n is a unit normal.
fn contact(state: ptr<function, array<vec3<f32>, 2>>, origin: vec3<f32>, n: vec3<f32>) {
  let depth = effects.thickness - dot((*state)[0] - origin, n);
  if (depth <= 0.0) {
    return;
  }
  (*state)[0] += depth * n;
  let v = (*state)[1];
  let normal = dot(v, n);
  let tangential = v - normal * n;
  (*state)[1] = max(normal, 0.0) * n + (1.0 - effects.friction) * tangential;
}

@compute @workgroup_size(workgroupSize)
fn effectsMain(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= effects.particleCount) {
    return;
  }
  let mass = particleMass[i];
  if (mass == 0.0) {
    return;
  }
  let v0 = velocities[i].xyz;
  var state = array<vec3<f32>, 2>(positions[i].xyz, v0);

  // Gusts: the wind's strength varies slowly in time and across the cloth.
  let x = state[0];
  let t = effects.time;
  let gust = 0.65 + 0.25 * sin(1.3 * t + 1.7 * x.x + 0.9 * x.y) + 0.1 * sin(3.1 * t - 2.3 * x.z);
  let n = normals[i].xyz;
  let push = dot(gust * effects.wind - state[1], n);
  state[1] += min(effects.windDrag * effects.h, 1.0) * push * n;

  if (effects.sphereRadius > 0.0) {
    let offset = x - effects.sphereCenter;
    let distance = length(offset);
    let outward = select(vec3<f32>(0.0, 1.0, 0.0), offset / distance, distance > 1e-6);
    contact(&state, effects.sphereCenter + effects.sphereRadius * outward, outward);
  }
  contact(&state, vec3<f32>(0.0, effects.floorHeight, 0.0), vec3<f32>(0.0, 1.0, 0.0));

  positions[i] = vec4<f32>(state[0], 1.0);
  velocities[i] = vec4<f32>(state[1], 0.0);
  if (effects.hasMomenta == 1u) {
    momenta[i] = vec4<f32>(momenta[i].xyz + mass * (state[1] - v0), 0.0);
  }
}
