// Newton iterates of backward-euler and variational-symplectic-implicit, one thread per particle
// (CPU mirror: src/cpu/cpu-implicit-simulation.ts), with partial sums for their criteria:
//   mode 0, backward-euler begin:  x₀ = x, v₀ = v, a = 0, v = v₀, x = x₀ + h v₀
//   mode 1, backward-euler iterate: a += δa, v = v₀ + h a, x = x₀ + h v;  partials (‖δa‖², ‖a‖²)
//   mode 2, variational begin:      q₀ = x, res = 0;  partials (‖q₀‖²)
//   mode 3, variational iterate:    res' = solution, x = q₀ + res';  partials (‖res' − res‖²)

struct NewtonUpdate {
  mode: u32,
  h: f32,  // s
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> update: NewtonUpdate;
@group(0) @binding(2) var<storage, read> solution: array<vec4<f32>>;             // δa or res'
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> velocities: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> accelerations: array<vec4<f32>>;  // a or res
@group(0) @binding(6) var<storage, read_write> startPositions: array<vec4<f32>>; // x₀ = q₀
@group(0) @binding(7) var<storage, read_write> startVelocities: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn newtonUpdateMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
  @builtin(workgroup_id) group: vec3<u32>,
) {
  let i = threadIndex(id, groups);
  let h = update.h;
  var sums = vec4<f32>(0.0);
  if (i < params.particleCount) {
    switch (update.mode) {
      case 0u: {
        let x0 = positions[i];
        let v0 = velocities[i];
        startPositions[i] = x0;
        startVelocities[i] = v0;
        accelerations[i] = vec4<f32>(0.0);
        positions[i] = vec4<f32>(x0.xyz + h * v0.xyz, 1.0);
      }
      case 1u: {
        let delta = solution[i].xyz;
        let a = accelerations[i].xyz + delta;
        accelerations[i] = vec4<f32>(a, 0.0);
        let v = startVelocities[i].xyz + h * a;
        velocities[i] = vec4<f32>(v, 0.0);
        positions[i] = vec4<f32>(startPositions[i].xyz + h * v, 1.0);
        sums = vec4<f32>(dot(delta, delta), dot(a, a), 0.0, 0.0);
      }
      case 2u: {
        let q0 = positions[i];
        startPositions[i] = q0;
        accelerations[i] = vec4<f32>(0.0);
        sums = vec4<f32>(dot(q0.xyz, q0.xyz), 0.0, 0.0, 0.0);
      }
      default: {
        let next = solution[i].xyz;
        let change = next - accelerations[i].xyz;
        accelerations[i] = vec4<f32>(next, 0.0);
        positions[i] = vec4<f32>(startPositions[i].xyz + next, 1.0);
        sums = vec4<f32>(dot(change, change), 0.0, 0.0, 0.0);
      }
    }
  }
  let total = workgroupSum(local, sums);
  if (local == 0u) {
    partials[groupIndex(group, groups)] = total;
  }
}
