// `combine`: up to two linear combinations out_k = Σ_j c_kj in_kj of up to eight vectors each,
// one thread per particle (CPU mirror: src/backends/cpu/executor.ts combine). Every term is read
// before either output is written, so an output may be one of its own terms (x ← x + h v).
// Runge–Kutta stages and solutions, symplectic updates, Adams steps, correctors and copies are all
// this kernel with other coefficients.

// The coefficients (h applied) are the op's uniform; which vectors it combines and writes are the
// pipeline's overrides, so each combination is its own specialised pipeline.
struct CombineOp {
  coefficients0a: vec4<f32>,  // c of output 0's terms 1–4
  coefficients0b: vec4<f32>,  // … terms 5–8
  coefficients1a: vec4<f32>,
  coefficients1b: vec4<f32>,
}

override outputCount: u32 = 1u;  // 1 or 2
override to0: u32 = 0u;          // reference written by output 0
override to1: u32 = 0u;          // … by output 1
override terms0: u32 = 0u;       // terms of output 0 (≤ 8)
override terms1: u32 = 0u;
override ref00: u32 = 0u;        // references of output 0's terms
override ref01: u32 = 0u;
override ref02: u32 = 0u;
override ref03: u32 = 0u;
override ref04: u32 = 0u;
override ref05: u32 = 0u;
override ref06: u32 = 0u;
override ref07: u32 = 0u;
override ref10: u32 = 0u;        // … of output 1's terms
override ref11: u32 = 0u;
override ref12: u32 = 0u;
override ref13: u32 = 0u;
override ref14: u32 = 0u;
override ref15: u32 = 0u;
override ref16: u32 = 0u;
override ref17: u32 = 0u;

@group(0) @binding(4) var<uniform> op: CombineOp;

// Last term first: programs put the base (y in y + h Σ c k) first, so the small increments are
// summed before the one rounding against it (one rounding of |y| instead of one per term).
fn term(sum: vec3<f32>, j: u32, count: u32, vector: u32, c: f32, i: u32) -> vec3<f32> {
  if (j >= count) {
    return sum;
  }
  return sum + c * loadVector(vector, i);
}

@compute @workgroup_size(workgroupSize)
fn programCombineMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let a = op.coefficients0a;
  let b = op.coefficients0b;
  var out0 = vec3<f32>(0.0);
  out0 = term(out0, 7u, terms0, ref07, b.w, i);
  out0 = term(out0, 6u, terms0, ref06, b.z, i);
  out0 = term(out0, 5u, terms0, ref05, b.y, i);
  out0 = term(out0, 4u, terms0, ref04, b.x, i);
  out0 = term(out0, 3u, terms0, ref03, a.w, i);
  out0 = term(out0, 2u, terms0, ref02, a.z, i);
  out0 = term(out0, 1u, terms0, ref01, a.y, i);
  out0 = term(out0, 0u, terms0, ref00, a.x, i);
  let c = op.coefficients1a;
  let d = op.coefficients1b;
  var out1 = vec3<f32>(0.0);
  out1 = term(out1, 7u, terms1, ref17, d.w, i);
  out1 = term(out1, 6u, terms1, ref16, d.z, i);
  out1 = term(out1, 5u, terms1, ref15, d.y, i);
  out1 = term(out1, 4u, terms1, ref14, d.x, i);
  out1 = term(out1, 3u, terms1, ref13, c.w, i);
  out1 = term(out1, 2u, terms1, ref12, c.z, i);
  out1 = term(out1, 1u, terms1, ref11, c.y, i);
  out1 = term(out1, 0u, terms1, ref10, c.x, i);
  storeVector(to0, i, out0);
  if (outputCount == 2u) {
    storeVector(to1, i, out1);
  }
}
