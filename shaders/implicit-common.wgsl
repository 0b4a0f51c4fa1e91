// Shared by the implicit kernels (prepended after common.wgsl). Conventions of
// src/cpu/implicit-passes.ts: K = −∂f/∂x, B = −∂f/∂v; spring s adds J_s (stiffness) and
// c n nᵀ (damping) as 3×3 blocks, (K u)_a = Σ_s J_s (u_a − u_b).

// SpringState (one spring at the evaluation point, spring-jacobians.wgsl) is in program-vectors.wgsl.

// Coefficients of a solve and of the Newton loop, written once.
struct SolverParams {
  massCoefficient: f32,       // α in A = α M + β B + γ K
  dampingCoefficient: f32,    // β, s
  stiffnessCoefficient: f32,  // γ, s²
  tolerance2: f32,            // (relative residual tolerance)²
  maxIterations: u32,         // linear-solver iterations per solve
  preconditioner: u32,        // 0: none (cg), 1: scalar diagonal, 2: 3×3 block diagonal
  exactJacobian: u32,         // 1: keep the geometric term of compressed springs
  newtonIterations: u32,      // most Newton iterations per step
  correctionTolerance: f32,   // backward-euler, ≤ 0 disables
  residualTolerance: f32,     // backward-euler, relative to the first iteration's residual, ≤ 0 disables
  absoluteTolerance: f32,     // backward-euler, ≤ 0 disables
  newtonError: f32,           // variational-symplectic-implicit
  partialCount: u32,          // workgroups of a per-particle pass (entries of `partials`)
  h: f32,                     // time step, s
  particleGroups: vec4<u32>,  // workgroup counts (x, y, 1) of a per-particle pass
  springGroups: vec4<u32>,    // workgroup counts (x, y, 1) of a per-spring pass
}

// Scalars of the solver, kept on the GPU so no iteration waits on the CPU. The three vec4s are
// indirect dispatch arguments: the scalar kernel zeroes them when a solve (or the Newton loop)
// is done, so the passes encoded after that launch no workgroups.
struct SolverControl {
  cgGroups: vec4<u32>,              // per-particle passes of a linear-solver iteration
  newtonParticleGroups: vec4<u32>,  // per-particle passes of a Newton iteration
  newtonSpringGroups: vec4<u32>,    // per-spring passes of a Newton iteration
  rz: f32,             // r·z
  rr: f32,             // r·r
  bb: f32,             // b·b
  alpha: f32,
  beta: f32,
  cgIterations: u32,
  cgConverged: u32,
  newtonIteration: u32,     // Newton iterations done this step
  newtonDone: u32,
  newtonConverged: u32,
  residual2: f32,           // ‖R‖² (backward-euler)
  correction2: f32,         // ‖δa‖² of the last Newton iteration
  total2: f32,              // ‖Σ δa‖²
  firstResidual2: f32,      // ‖R‖² after the first iteration
  start2: f32,              // ‖q₀‖² (variational)
  change2: f32,             // ‖q_i − q_{i−1}‖² (variational)
  linearSolves: u32,        // totals since creation, read back by readSolverStats()
  linearIterations: u32,
  maxLinearIterations: u32,
  unconvergedSolves: u32,
  newtonIterations: u32,
  estimatorIterations: u32,  // … of them in loops counted as the error estimator's
  unconvergedSteps: u32,
  lastResidual: f32,
  maxResidual: f32,
  lastConverged: u32,
}

// y = D u for a symmetric block with diagonal d = (xx, yy, zz) and off-diagonal o = (xy, xz, yz).
fn symmetricProduct(d: vec3<f32>, o: vec3<f32>, u: vec3<f32>) -> vec3<f32> {
  return vec3<f32>(
    d.x * u.x + o.x * u.y + o.y * u.z,
    o.x * u.x + d.y * u.y + o.z * u.z,
    o.y * u.x + o.z * u.y + d.z * u.z,
  );
}

// The force on the spring's first endpoint, N.
fn springForce(state: SpringState) -> vec3<f32> {
  return state.direction.w * state.direction.xyz;
}

// (β c n nᵀ + γ J_s) u = γ k g u + (γ k (1 − g) + β c)(n·u) n: one spring's block of A applied to
// a difference u_i − u_j.
fn springBlockProduct(state: SpringState, beta: f32, gamma: f32, u: vec3<f32>) -> vec3<f32> {
  let n = state.direction.xyz;
  let k = state.coefficients;
  return gamma * k.x * u + ((gamma * k.y + beta * k.z) * dot(n, u)) * n;
}

// A symmetric 3×3 block.
struct SymmetricBlock {
  diagonal: vec3<f32>,     // xx, yy, zz
  offDiagonal: vec3<f32>,  // xy, xz, yz
}

// The block β c n nᵀ + γ J_s.
fn springBlock(state: SpringState, beta: f32, gamma: f32) -> SymmetricBlock {
  let n = state.direction.xyz;
  let k = state.coefficients;
  let along = gamma * k.y + beta * k.z;
  return SymmetricBlock(gamma * k.x + along * n * n, along * vec3<f32>(n.x * n.y, n.x * n.z, n.y * n.z));
}

// Threads per workgroup of the kernels that reduce (those that call workgroupSum): a power of two
// dividing workgroupSize, each thread taking workgroupSize / groupThreads of its workgroup's
// workgroupSize particles (groupParticle), so the workgroup counts and CG's partials do not depend
// on it. Set by the host (gpu-common.ts groupThreadsFor): workgroupSize on a GPU, one SIMD group
// (4 threads) on a CPU adapter, where SwiftShader runs the SIMD groups of a workgroup that has
// barriers as coroutines and a barrier switches between all of them (README, "Kernels and GPU
// resources": that cost 3× the product's own work at 64 threads).
override groupThreads: u32 = workgroupSize;

// Particles per thread of a reducing kernel.
fn groupShare() -> u32 {
  return workgroupSize / groupThreads;
}

// The t-th particle of thread `local` (t < groupShare()): consecutive threads take consecutive
// particles, as with one particle per thread.
fn groupParticle(group: vec3<u32>, groups: vec3<u32>, local: u32, t: u32) -> u32 {
  return groupIndex(group, groups) * workgroupSize + t * groupThreads + local;
}

var<workgroup> reductionScratch: array<vec4<f32>, workgroupSize>;

// Sum of `value` over the groupThreads threads of the workgroup in a fixed tree order
// (deterministic); every thread gets it. Must be called from uniform control flow.
fn workgroupSum(local: u32, value: vec4<f32>) -> vec4<f32> {
  reductionScratch[local] = value;
  workgroupBarrier();
  for (var stride = groupThreads / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      reductionScratch[local] += reductionScratch[local + stride];
    }
    workgroupBarrier();
  }
  return reductionScratch[0];
}

// Index of this workgroup in a 1-D or 2-D grid, for `partials`.
fn groupIndex(group: vec3<u32>, groups: vec3<u32>) -> u32 {
  return group.x + group.y * groups.x;
}

// u with the normal component of a contact constraint removed, S u = u − (u·n) n, where
// `normal`.w > 0 marks a constrained particle (Baraff & Witkin 1998 §5.3; src/backends/cpu/contacts.ts).
// Projected twice, f = S (S u) (Kahan's "twice is enough": Parlett, The Symmetric Eigenvalue
// Problem, 1980; Giraud, Langou & Rozložník 2005): once leaves ~6e-8 |u·n| along n (n is unit
// only to float32). In b − A x₀, u·n is a contact's force λ, which stays while the residual across
// n falls over a Newton loop, until that leftover, which no filtered direction can remove, is
// above the tolerance and CG breaks down on p·Ap ≤ 0 (backward Euler, an 8² cloth on a sphere: 88
// of 168 solves; test/gpu-implicit-colliders.test.ts). contact-filter.wgsl projects twice too.
// A u along n up to rounding (|S u|² ≤ FILTER_ROUNDING² |u|²) gives 0, not the rounding, which CG
// would take for a direction of the constrained subspace (CpuContacts.filter gives the reason).
const FILTER_ROUNDING2 = 1e-12;  // FILTER_ROUNDING² of src/model/colliders.ts
// w = 2 marks a sticking one (static friction, held in all three directions): S = 0.
fn contactFiltered(u: vec3<f32>, normal: vec4<f32>) -> vec3<f32> {
  let w = min(normal.w, 1.0);
  let once = u - w * dot(u, normal.xyz) * normal.xyz;
  let f = once - w * dot(once, normal.xyz) * normal.xyz;
  let zero = normal.w > 1.5 || (normal.w > 0.0 && dot(f, f) <= FILTER_ROUNDING2 * dot(u, u));
  return select(f, vec3<f32>(0.0), zero);
}
