// `combine`: up to two linear combinations out_k = Σ_j c_kj in_kj of up to eight vectors each,
// one thread per particle (CPU mirror: src/backends/cpu/executor.ts combine). Every term is read
// before either output is written, so an output may be one of its own terms (x ← x + h v).
// Runge–Kutta stages and solutions, symplectic updates, Adams steps, correctors and copies are all
// this kernel with other coefficients.

struct CombineOp {
  outputCount: u32,        // 1 or 2
  to0: u32,                // reference written by output 0
  to1: u32,                // reference written by output 1
  terms0: u32,             // terms of output 0 (≤ 8)
  terms1: u32,             // terms of output 1 (≤ 8)
  refs0a: vec4<u32>,       // references of output 0's terms 1–4
  refs0b: vec4<u32>,       // … terms 5–8
  refs1a: vec4<u32>,
  refs1b: vec4<u32>,
  coefficients0a: vec4<f32>,  // c of output 0's terms 1–4 (h already applied)
  coefficients0b: vec4<f32>,
  coefficients1a: vec4<f32>,
  coefficients1b: vec4<f32>,
}

@group(0) @binding(4) var<uniform> op: CombineOp;

fn combination(count: u32, refsA: vec4<u32>, refsB: vec4<u32>, cA: vec4<f32>, cB: vec4<f32>, i: u32) -> vec3<f32> {
  let refs = array<u32, 8>(refsA.x, refsA.y, refsA.z, refsA.w, refsB.x, refsB.y, refsB.z, refsB.w);
  let c = array<f32, 8>(cA.x, cA.y, cA.z, cA.w, cB.x, cB.y, cB.z, cB.w);
  // Last term first: programs put the base (y in y + h Σ c k) first, so the small increments are
  // summed before the one rounding against it (one rounding of |y| instead of one per term).
  var sum = vec3<f32>(0.0);
  for (var j = count; j > 0u; j--) {
    sum += c[j - 1u] * loadVector(refs[j - 1u], i);
  }
  return sum;
}

@compute @workgroup_size(workgroupSize)
fn programCombineMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let out0 = combination(op.terms0, op.refs0a, op.refs0b, op.coefficients0a, op.coefficients0b, i);
  let out1 = combination(op.terms1, op.refs1a, op.refs1b, op.coefficients1a, op.coefficients1b, i);
  storeVector(op.to0, i, out0);
  if (op.outputCount == 2u) {
    storeVector(op.to1, i, out1);
  }
}
