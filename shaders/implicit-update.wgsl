// State updates of the single-solve implicit schemes, one thread per particle
// (CPU mirror: src/cpu/cpu-implicit-simulation.ts):
//   implicit-euler (scheme 0):  v₊ = v + Δv,  x₊ = x + h v₊              (solution = Δv)
//   newmark        (scheme 1):  x₊ = x + h v + h² ((½ − β) a + β a₊),
//                               v₊ = v + h ((1 − γ) a + γ a₊),  a ← a₊   (solution = a₊)

struct ImplicitUpdate {
  scheme: u32,
  h: f32,       // s
  gamma: f32,   // Newmark γ
  beta: f32,    // Newmark β
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> update: ImplicitUpdate;
@group(0) @binding(2) var<storage, read> solution: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> velocities: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> accelerations: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn implicitUpdateMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let h = update.h;
  let x = positions[i].xyz;
  let v = velocities[i].xyz;
  let s = solution[i].xyz;
  if (update.scheme == 0u) {
    let next = v + s;
    velocities[i] = vec4<f32>(next, 0.0);
    positions[i] = vec4<f32>(x + h * next, 1.0);
  } else {
    let a = accelerations[i].xyz;
    positions[i] = vec4<f32>(x + h * v + h * h * ((0.5 - update.beta) * a + update.beta * s), 1.0);
    velocities[i] = vec4<f32>(v + h * ((1.0 - update.gamma) * a + update.gamma * s), 0.0);
    accelerations[i] = vec4<f32>(s, 0.0);
  }
}
