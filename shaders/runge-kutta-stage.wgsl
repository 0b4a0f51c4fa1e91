// One stage of an explicit Runge–Kutta step whose stage i+1 depends only on stage i
// (explicit Euler, midpoint RK2, Heun, RK4; CPU mirror: src/cpu/passes.ts rungeKuttaStage).
// With k_i = (v_i, a_i) at stage state (x_i, v_i) — the step's own state on the first stage:
//   sum += b_i h k_i;
//   not last: x_{i+1} = x + c_{i+1} h v_i,  v_{i+1} = v + c_{i+1} h a_i;
//   last:     x₊ = x + sum_x,  v₊ = v + sum_v.
// Tableaux: src/integrators/schemes.ts; spec/integration-methods-lecture-de.md, spec/sofa-ode-solvers.md §5.

struct RungeKuttaStage {
  stageStep: f32,  // c_{i+1} h, s
  weight: f32,     // b_i h, s
  isFirst: u32,    // 1 on stage 1: k_1 is taken at the step's own state
  isLast: u32,     // 1 on stage s: write the new state
}

@group(0) @binding(0) var<uniform> stage: RungeKuttaStage;
@group(0) @binding(1) var<uniform> params: SimParams;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;        // x, m
@group(0) @binding(3) var<storage, read_write> velocities: array<vec4<f32>>;       // v, m/s
@group(0) @binding(4) var<storage, read_write> stagePositions: array<vec4<f32>>;   // x_i, m
@group(0) @binding(5) var<storage, read_write> stageVelocities: array<vec4<f32>>;  // v_i, m/s
@group(0) @binding(6) var<storage, read> accelerations: array<vec4<f32>>;          // a_i, m/s²
@group(0) @binding(7) var<storage, read_write> sumPositions: array<vec4<f32>>;     // Σ b_j h v_j, m
@group(0) @binding(8) var<storage, read_write> sumVelocities: array<vec4<f32>>;    // Σ b_j h a_j, m/s

@compute @workgroup_size(workgroupSize)
fn rungeKuttaStageMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let first = stage.isFirst == 1u;
  let kx = select(stageVelocities[i].xyz, velocities[i].xyz, first);
  let kv = accelerations[i].xyz;
  let sumX = select(sumPositions[i].xyz, vec3<f32>(0.0), first) + stage.weight * kx;
  let sumV = select(sumVelocities[i].xyz, vec3<f32>(0.0), first) + stage.weight * kv;
  if (stage.isLast == 1u) {
    positions[i] = vec4<f32>(positions[i].xyz + sumX, 1.0);
    velocities[i] = vec4<f32>(velocities[i].xyz + sumV, 0.0);
  } else {
    sumPositions[i] = vec4<f32>(sumX, 0.0);
    sumVelocities[i] = vec4<f32>(sumV, 0.0);
    stagePositions[i] = vec4<f32>(positions[i].xyz + stage.stageStep * kx, 1.0);
    stageVelocities[i] = vec4<f32>(velocities[i].xyz + stage.stageStep * kv, 0.0);
  }
}
