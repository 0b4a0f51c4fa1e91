// u ← S w on the constrained particles (S = I − n nᵀ; w = u, or another vector), one thread per
// particle: the products and V-cycle outputs of a constrained CG (Baraff & Witkin 1998 §5.3),
// Newmark's carried acceleration (src/integrators/contact-programs.ts); CPU: CpuContacts.filter.

override vectorRef: u32 = 0u;  // u
override fromRef: u32 = 0u;    // w (= vectorRef to filter u in place)
const FILTER_ROUNDING2 = 1e-12;  // FILTER_ROUNDING² of src/model/colliders.ts

@group(0) @binding(7) var<storage, read> contactNormals: array<vec4<f32>>;  // n, w = 1: constrained, 2: sticking

@compute @workgroup_size(workgroupSize)
fn contactFilterMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || contactNormals[i].w == 0.0) {
    return;
  }
  let n = contactNormals[i].xyz;
  let u = loadVector(fromRef, i);
  // Projected twice: once leaves ~6e-8 |u·n| along n (contactFiltered, implicit-common.wgsl).
  let once = u - dot(u, n) * n;
  let f = once - dot(once, n) * n;
  // u along n up to rounding, or a sticking contact (w = 2): 0 (contactFiltered).
  let zero = contactNormals[i].w > 1.5 || dot(f, f) <= FILTER_ROUNDING2 * dot(u, u);
  storeVector(vectorRef, i, select(f, vec3<f32>(0.0), zero));
}
