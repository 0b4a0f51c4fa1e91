// End of a variational-symplectic-implicit step (SOFA VariationalSymplecticSolver; CPU mirror:
// src/cpu/cpu-implicit-simulation.ts), one thread per particle:
//   mode 0:  v₊ = 2 res / h,  x = q₀ + res            (the midpoint, where f is evaluated next)
//   mode 1:  p₊ = (h/2) f(q₀ + res, v₊) + m v₊,  x₊ = q₀ + 2 res   (f from implicit-rhs.wgsl)

struct VariationalFinish {
  mode: u32,
  h: f32,  // s
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> finish: VariationalFinish;
@group(0) @binding(2) var<storage, read> accelerations: array<vec4<f32>>;   // res
@group(0) @binding(3) var<storage, read> startPositions: array<vec4<f32>>;  // q₀
@group(0) @binding(4) var<storage, read> rhs: array<vec4<f32>>;             // f at the midpoint
@group(0) @binding(5) var<storage, read> particleMass: array<f32>;          // kg; 0: fixed
@group(0) @binding(6) var<storage, read_write> positions: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> velocities: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> momenta: array<vec4<f32>>;   // p, kg·m/s

@compute @workgroup_size(workgroupSize)
fn variationalFinishMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let res = accelerations[i].xyz;
  let q0 = startPositions[i].xyz;
  if (finish.mode == 0u) {
    velocities[i] = vec4<f32>((2.0 / finish.h) * res, 0.0);
    positions[i] = vec4<f32>(q0 + res, 1.0);
  } else {
    momenta[i] = vec4<f32>(0.5 * finish.h * rhs[i].xyz + particleMass[i] * velocities[i].xyz, 0.0);
    positions[i] = vec4<f32>(q0 + 2.0 * res, 1.0);
  }
}
