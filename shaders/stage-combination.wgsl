// y_out = y_base + h Σ_j c_j k_j over up to eight stored derivatives k_j = (kx_j, kv_j), for x and v
// at once (CPU mirror: src/adaptive/stage-passes.ts stageCombination). Runge–Kutta stage states,
// embedded solutions and error vectors are all this kernel with other coefficients.
// Derivative j of particle i is at index j * particleCount + i of kx and kv.

struct Combination {
  coefficients0: vec4<f32>,  // c_1 … c_4
  coefficients1: vec4<f32>,  // c_5 … c_8
  h: f32,                    // step, s
  hasBase: u32,              // 0: y_base = 0 (error vectors)
  stages: u32,               // number of c_j used
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<uniform> combination: Combination;
@group(0) @binding(2) var<storage, read> basePositions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> baseVelocities: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> stageVelocities: array<vec4<f32>>;     // kx_j, m/s
@group(0) @binding(5) var<storage, read> stageAccelerations: array<vec4<f32>>;  // kv_j, m/s²
@group(0) @binding(6) var<storage, read_write> outPositions: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> outVelocities: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn stageCombinationMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  let n = params.particleCount;
  if (i >= n) {
    return;
  }
  let c = array<f32, 8>(
    combination.coefficients0.x, combination.coefficients0.y, combination.coefficients0.z,
    combination.coefficients0.w, combination.coefficients1.x, combination.coefficients1.y,
    combination.coefficients1.z, combination.coefficients1.w,
  );
  var sx = vec3<f32>(0.0);
  var sv = vec3<f32>(0.0);
  for (var j = 0u; j < combination.stages; j++) {
    if (c[j] != 0.0) {
      sx += c[j] * stageVelocities[j * n + i].xyz;
      sv += c[j] * stageAccelerations[j * n + i].xyz;
    }
  }
  var x = combination.h * sx;
  var v = combination.h * sv;
  if (combination.hasBase == 1u) {
    x += basePositions[i].xyz;
    v += baseVelocities[i].xyz;
  }
  outPositions[i] = vec4<f32>(x, 1.0);
  outVelocities[i] = vec4<f32>(v, 0.0);
}
