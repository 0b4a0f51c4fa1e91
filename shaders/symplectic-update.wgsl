// Velocity first, then position with the new velocity (CPU mirror: src/cpu/passes.ts symplecticUpdate):
//   v₊ = α v + β a,  x₊ = x + h v₊.
// symplectic-euler and variational-symplectic: α = 1, β = h (a includes −r_m v);
// central-difference (spec/sofa-ode-solvers.md §6): α = (1/h − r_m/2)/(1/h + r_m/2), β = 1/(1/h + r_m/2).

struct SymplecticUpdate {
  h: f32,                  // step, s
  velocityScale: f32,      // α
  accelerationScale: f32,  // β, s
}

@group(0) @binding(0) var<uniform> update: SymplecticUpdate;
@group(0) @binding(1) var<uniform> params: SimParams;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;   // x, m
@group(0) @binding(3) var<storage, read_write> velocities: array<vec4<f32>>;  // v, m/s
@group(0) @binding(4) var<storage, read> accelerations: array<vec4<f32>>;     // a(x, v), m/s²

@compute @workgroup_size(workgroupSize)
fn symplecticUpdateMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let v = update.velocityScale * velocities[i].xyz + update.accelerationScale * accelerations[i].xyz;
  velocities[i] = vec4<f32>(v, 0.0);
  positions[i] = vec4<f32>(positions[i].xyz + update.h * v, 1.0);
}
