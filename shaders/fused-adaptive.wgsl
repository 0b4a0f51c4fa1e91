// Fused adaptive integration for small systems (issue 10, "a GPU that never waits on the CPU"):
// one workgroup runs a batch of attempted steps of an adaptive program — its ops interpreted
// from `code`, the step-size controller, the accept/reject decision — in one dispatch, with
// barriers between the ops instead of dispatches. Mirrors, op for op, the CPU executor
// (src/backends/cpu/executor.ts, implicit-ops.ts, linear-solver.ts PCG, error-norm.ts) and the
// controllers (src/simulation/adaptive-simulation.ts stepTowards, drake-controller.ts); the
// program is compiled by src/backends/webgpu/fused-program.ts. Each thread takes the particles
// (springs) local, local + workgroupSize, …; sums run over a fixed tree: deterministic.
// Prepended: common.wgsl, program-vectors.wgsl (params, positions, velocities, arena).

// Opcodes of `code` (fused-program.ts reads them from here).
const OP_END: u32 = 0u;            // [END]
const OP_EVAL: u32 = 1u;           // [EVAL, x, v, a, c(r_m)]
const OP_COMBINE: u32 = 2u;        // [COMBINE, outputs, (to, terms, (ref, c) × terms) × outputs]
const OP_NORM: u32 = 3u;           // [NORM, e_x, e_v, y_x, y_v, ŷ_x, ŷ_v, c(r), c(a_x), c(a_v), c(w_x), c(w_v)]
const OP_JACOBIANS: u32 = 4u;      // [JACOBIANS, x, v]
const OP_RHS: u32 = 5u;            // [RHS, to, v, a, w, c × 8 (RhsCoefficients in order)]
const OP_SOLVE: u32 = 6u;          // [SOLVE, b, x, c(α), c(β), c(γ)]
const OP_MEASURE: u32 = 7u;        // [MEASURE, count, (quantity, ref) × count]
const OP_NEWTON_BEGIN: u32 = 8u;   // [NEWTON_BEGIN]
const OP_NEWTON_CHECK: u32 = 9u;   // [NEWTON_CHECK, estimator, pc after the loop]
const OP_NEWTON_NEXT: u32 = 10u;   // [NEWTON_NEXT, pc of the residual]
const OP_WORDS: array<u32, 11> = array<u32, 11>(1u, 5u, 0u, 12u, 3u, 13u, 6u, 0u, 1u, 3u, 2u);

// Newton quantities of MEASURE (src/integrators/program.ts NewtonQuantity).
const Q_RESIDUAL: u32 = 1u;
const Q_CORRECTION: u32 = 2u;
const Q_TOTAL: u32 = 3u;

// FusedControl.status.
const RUNNING: u32 = 0u;
const DONE: u32 = 1u;              // the target time or step count reached
const HALT_NEWTON: u32 = 2u;       // Newton failed at the minimum step
const HALT_NON_FINITE: u32 = 3u;   // a non-finite error at the minimum step
const HALT_ACCURACY: u32 = 4u;     // the accuracy missed at the minimum step, onMinStep 'throw'

// Drake's phases of an accepted step (drake-controller.ts drakeStep).
const DRAKE_NEW: u32 = 0u;
const DRAKE_RETRY: u32 = 1u;         // after an error-control rejection: the step is limited again
const DRAKE_RETRY_NEWTON: u32 = 2u;  // after a Newton failure: h as halved

// The program and the controller's constants, written once.
struct FusedSettings {
  firstPc: u32,              // `first` (after each acceptance), `attempt`, `accept`
  attemptPc: u32,
  acceptPc: u32,
  attemptsPerDispatch: u32,
  drake: u32,                // 1: Drake's controller, 0: Hairer's
  maxNorm: u32,              // 1: max norm, 0: RMS
  onMinStepThrow: u32,
  freeParticles: u32,
  estimateOrder: f32,        // q: the estimate is O(h^q)
  safetyFactor: f32,
  growthLimit: f32,
  shrinkLimit: f32,
  minStep: f32,              // s
  maxStep: f32,              // s (may be +∞)
  newtonFailureShrink: f32,
  tolerance2: f32,           // (CG's relative residual tolerance)²
  maxIterations: u32,        // CG iterations per solve
  preconditioner: u32,       // 0: none, 1: scalar diagonal, 2: 3×3 block diagonal
  exactJacobian: u32,
  warmStart: u32,
  newtonIterations: u32,
  correctionTolerance: f32,  // Caribou's criteria (≤ 0 disables)
  residualTolerance: f32,
  absoluteTolerance: f32,
}

// The controller's state and the statistics, on the GPU; the host writes the request (the first
// five members) before a batch and reads everything back after it.
struct FusedControl {
  targetHi: f32,             // the target time, s, as hi + lo (two floats: t to ~10⁻¹⁴ relative)
  targetLo: f32,
  bounded: u32,              // 0: no target time (advance(n))
  stepsLeft: u32,            // accepted steps still wanted (0: as many as the target needs)
  status: u32,
  timeHi: f32,               // t, s
  timeLo: f32,
  proposal: f32,             // the step the controller proposes next, s
  lastRejected: u32,
  firstValid: u32,           // `first` ran on the accepted state
  phase: u32,                // Drake: DRAKE_*
  h: f32,                    // the step of the attempt, s
  planned: f32,              // Hairer: the step before clipping to the target
  clipped: u32,              // the step was shortened to land on the target
  atMinimum: u32,
  hMax: f32,                 // Drake: min(target − t, maxStep)
  workingMinimum: f32,       // Drake: max(minStep, 10⁻¹⁴, 10⁻¹⁴ |t|)
  haltStep: f32,             // the step that halted, s
  attempts: u32,
  acceptedSteps: u32,
  rejectedSteps: u32,
  shrinksFromErrorControl: u32,
  shrinksFromNewtonFailure: u32,
  minStepViolations: u32,
  accuracyMissed: u32,
  smallestStep: f32,
  largestStep: f32,
  lastErrorEstimate: f32,
  maxErrorEstimate: f32,
  evaluations: u32,          // a(x, v) and spring-state evaluations
  linearSolves: u32,
  linearIterations: u32,
  maxLinearIterations: u32,
  unconvergedSolves: u32,
  lastResidual: f32,
  maxResidual: f32,
  newtonIterations: u32,
  estimatorIterations: u32,
  failedNewtonLoops: u32,
}

@group(0) @binding(4) var<uniform> settings: FusedSettings;
@group(0) @binding(5) var<uniform> code: array<vec4<u32>, 1024>;
// Coefficient k(h) = c.x + h (c.y + h (c.z + h c.w)) (fused-program.ts fits them).
@group(0) @binding(6) var<uniform> coefficients: array<vec4<f32>, 512>;
@group(0) @binding(7) var<storage, read_write> control: FusedControl;
@group(0) @binding(8) var<storage, read> springs: array<Spring>;
// CSR: offsets [0, n], then per entry (2 · spring + side, the other endpoint).
@group(0) @binding(9) var<storage, read> incidence: array<u32>;
// Per particle (m, 1/m), kg and 1/kg; (0, 0) when fixed.
@group(0) @binding(10) var<storage, read> particleMasses: array<vec2<f32>>;
// Per particle: CG's r, p, q = A p, z = P⁻¹ r, and P⁻¹ as (xx, yy, zz) and (xy, xz, yz); then per
// spring (from 6n, springState()): (n, f) and (k g, k (1 − g), c, 0) as implicit-common.wgsl's SpringState.
@group(0) @binding(11) var<storage, read_write> work: array<vec4<f32>>;

var<workgroup> scratch: array<vec4<f32>, workgroupSize>;
var<workgroup> broadcastValue: vec4<f32>;
var<workgroup> sharedWord: u32;

fn word(pc: u32) -> u32 {
  return code[pc >> 2u][pc & 3u];
}

fn coefficient(k: u32, h: f32) -> f32 {
  let c = coefficients[k];
  return c.x + h * (c.y + h * (c.z + h * c.w));
}

fn isFinite(x: f32) -> bool {
  return x == x && abs(x) <= 3.4e38;
}

// The sum of `value` over the workgroup (a fixed tree), the same uniform value in every thread.
fn sumAll(local: u32, value: vec4<f32>) -> vec4<f32> {
  scratch[local] = value;
  workgroupBarrier();
  for (var stride = workgroupSize / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      scratch[local] += scratch[local + stride];
    }
    workgroupBarrier();
  }
  if (local == 0u) {
    broadcastValue = scratch[0];
  }
  return workgroupUniformLoad(&broadcastValue);
}

// Thread 0's u32 to every thread, uniform (decisions taken by the controller in thread 0).
fn broadcast(local: u32, value: u32) -> u32 {
  workgroupBarrier();
  if (local == 0u) {
    sharedWord = value;
  }
  return workgroupUniformLoad(&sharedWord);
}

fn workVector(slot: u32, i: u32) -> vec3<f32> {
  return work[6u * i + slot].xyz;
}

fn setWork(slot: u32, i: u32, value: vec3<f32>) {
  work[6u * i + slot] = vec4<f32>(value, 0.0);
}

// ---- ops over particles (each thread its own, then a barrier) ----

// `eval`: a = M⁻¹ Σ ±f_s + g − r_m v (0 if fixed); spring forces recomputed per incident spring.
fn evaluate(local: u32, x: u32, v: u32, a: u32, rayleighMass: f32) {
  let n = params.particleCount;
  for (var i = local; i < n; i += workgroupSize) {
    var force = vec3<f32>(0.0);
    for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
      let entry = incidence[n + 1u + 2u * e];
      let spring = springs[entry >> 1u];
      let d = loadVector(x, spring.particleB) - loadVector(x, spring.particleA);
      let l = length(d);
      var f = vec3<f32>(0.0);
      if (l > 0.0) {
        let closing = dot(loadVector(v, spring.particleB) - loadVector(v, spring.particleA), d);
        f = ((spring.stiffness * (l - spring.restLength) + spring.damping * closing / l) / l) * d;
      }
      force += select(f, -f, (entry & 1u) == 1u);
    }
    var acceleration = vec3<f32>(0.0);
    if (particleMasses[i].y > 0.0) {
      acceleration = force * particleMasses[i].y + params.gravity - rayleighMass * loadVector(v, i);
    }
    // Every thread has read what it needs of v before anyone writes a (a may alias nothing it reads
    // but its own particle's v, read above).
    storeVector(a, i, acceleration);
  }
  storageBarrier();
}

// `combine`: up to two outputs from the old values, then written (terms summed last first).
fn combine(local: u32, pc: u32, h: f32) {
  let outputs = word(pc + 1u);
  let terms0 = word(pc + 3u);
  let second = pc + 4u + 2u * terms0;
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    var value0 = vec3<f32>(0.0);
    for (var j = terms0; j > 0u; j--) {
      let at = pc + 4u + 2u * (j - 1u);
      value0 += coefficient(word(at + 1u), h) * loadVector(word(at), i);
    }
    var value1 = vec3<f32>(0.0);
    if (outputs == 2u) {
      for (var j = word(second + 1u); j > 0u; j--) {
        let at = second + 2u + 2u * (j - 1u);
        value1 += coefficient(word(at + 1u), h) * loadVector(word(at), i);
      }
    }
    storeVector(word(pc + 2u), i, value0);
    if (outputs == 2u) {
      storeVector(word(second), i, value1);
    }
  }
  storageBarrier();
}

// `norm` (error-norm.ts): (RMS or max of w e / (a + r max(|y|, |ŷ|)) over free particles, finite).
fn norm(local: u32, pc: u32, h: f32) -> vec2<f32> {
  let relative = coefficient(word(pc + 7u), h);
  let absoluteX = coefficient(word(pc + 8u), h);
  let absoluteV = coefficient(word(pc + 9u), h);
  let weightX = coefficient(word(pc + 10u), h);
  let weightV = coefficient(word(pc + 11u), h);
  var sum = 0.0;
  var largest = 0.0;
  var nonFinite = 0.0;
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    if (particleMasses[i].y > 0.0) {
      let scaleX = absoluteX + relative * max(abs(loadVector(word(pc + 3u), i)), abs(loadVector(word(pc + 5u), i)));
      let scaleV = absoluteV + relative * max(abs(loadVector(word(pc + 4u), i)), abs(loadVector(word(pc + 6u), i)));
      let tx = weightX * loadVector(word(pc + 1u), i) / scaleX;
      let tv = weightV * loadVector(word(pc + 2u), i) / scaleV;
      let m = max(max(max(abs(tx.x), abs(tx.y)), abs(tx.z)), max(max(abs(tv.x), abs(tv.y)), abs(tv.z)));
      let s = dot(tx, tx) + dot(tv, tv);
      sum += s;
      largest = max(largest, m);
      nonFinite += select(1.0, 0.0, isFinite(s) && isFinite(m));
    }
  }
  // Maxima by tree as well: max over the workgroup = the largest partial.
  scratch[local] = vec4<f32>(sum, largest, nonFinite, 0.0);
  workgroupBarrier();
  for (var stride = workgroupSize / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      let a = scratch[local];
      let b = scratch[local + stride];
      scratch[local] = vec4<f32>(a.x + b.x, max(a.y, b.y), a.z + b.z, 0.0);
    }
    workgroupBarrier();
  }
  if (local == 0u) {
    broadcastValue = scratch[0];
  }
  let total = workgroupUniformLoad(&broadcastValue);
  if (settings.freeParticles == 0u) {
    return vec2<f32>(0.0, 1.0);
  }
  let value = select(sqrt(total.x / f32(6u * settings.freeParticles)), total.y, settings.maxNorm == 1u);
  return vec2<f32>(value, select(0.0, 1.0, total.z == 0.0));
}

// ---- implicit ops (implicit-passes.ts, linear-solver.ts) ----

// `jacobians`: per spring (n, f) and (k g, k (1 − g), c): J_s = k g I + k (1 − g) n nᵀ, g = 1 − L/l
// clamped at 0 unless exact (Choi & Ko 2002).
fn jacobians(local: u32, x: u32, v: u32) {
  for (var s = local; s < params.springCount; s += workgroupSize) {
    let spring = springs[s];
    let d = loadVector(x, spring.particleB) - loadVector(x, spring.particleA);
    let l = length(d);
    var n = vec3<f32>(0.0);
    var magnitude = 0.0;
    var geometric = 0.0;
    if (l > 0.0) {
      n = d / l;
      let closing = dot(loadVector(v, spring.particleB) - loadVector(v, spring.particleA), n);
      magnitude = spring.stiffness * (l - spring.restLength) + spring.damping * closing;
      geometric = 1.0 - spring.restLength / l;
      if (settings.exactJacobian == 0u) {
        geometric = max(geometric, 0.0);
      }
    }
    work[6u * params.particleCount + 2u * s] = vec4<f32>(n, magnitude);
    work[6u * params.particleCount + 2u * s + 1u] = vec4<f32>(spring.stiffness * geometric, spring.stiffness * (1.0 - geometric), spring.damping, 0.0);
  }
  storageBarrier();
}

// (β c n nᵀ + γ J_s) u for spring s.
fn springApply(s: u32, beta: f32, gamma: f32, u: vec3<f32>) -> vec3<f32> {
  let n = work[6u * params.particleCount + 2u * s].xyz;
  let k = work[6u * params.particleCount + 2u * s + 1u];
  return gamma * k.x * u + ((gamma * k.y + beta * k.z) * dot(n, u)) * n;
}

// `rhs`: b_i = s_f f_i + c_w w_i + m_i (c_v v_i + c_a a_i) − (K (γ_v v + γ_a a))_i − (B (β_v v + β_a a))_i.
fn rhs(local: u32, pc: u32, h: f32) {
  let to = word(pc + 1u);
  let v = word(pc + 2u);
  let a = word(pc + 3u);
  let w = word(pc + 4u);
  let forceScale = coefficient(word(pc + 5u), h);
  let extraScale = coefficient(word(pc + 6u), h);
  let velocityMass = coefficient(word(pc + 7u), h);
  let accelerationMass = coefficient(word(pc + 8u), h);
  let velocityStiffness = coefficient(word(pc + 9u), h);
  let accelerationStiffness = coefficient(word(pc + 10u), h);
  let velocityDamping = coefficient(word(pc + 11u), h);
  let accelerationDamping = coefficient(word(pc + 12u), h);
  let n = params.particleCount;
  for (var i = local; i < n; i += workgroupSize) {
    let m = particleMasses[i].x;
    var b = vec3<f32>(0.0);
    if (particleMasses[i].y > 0.0) {
      b = forceScale * m * params.gravity;
      for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
        let entry = incidence[n + 1u + 2u * e];
        let other = incidence[n + 2u + 2u * e];
        let s = entry >> 1u;
        let state = work[6u * params.particleCount + 2u * s];
        let f = state.w * state.xyz;
        b += select(f, -f, (entry & 1u) == 1u);
        let dv = loadVector(v, i) - loadVector(v, other);
        let da = loadVector(a, i) - loadVector(a, other);
        b -= springApply(s, 0.0, 1.0, velocityStiffness * dv + accelerationStiffness * da);
        b -= springApply(s, 1.0, 0.0, velocityDamping * dv + accelerationDamping * da);
      }
      b = b + extraScale * loadVector(w, i) + m * (velocityMass * loadVector(v, i) + accelerationMass * loadVector(a, i));
    }
    storeVector(to, i, b);
  }
  storageBarrier();
}

// (A u)_i = α m_i u_i + Σ_s (β c n nᵀ + γ J_s)(u_i − u_j); 0 on fixed particles. u: a work slot.
fn product(i: u32, slot: u32, system: vec3<f32>) -> vec3<f32> {
  let n = params.particleCount;
  if (particleMasses[i].y == 0.0) {
    return vec3<f32>(0.0);
  }
  let u = workVector(slot, i);
  var y = system.x * particleMasses[i].x * u;
  for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
    let s = incidence[n + 1u + 2u * e] >> 1u;
    y += springApply(s, system.y, system.z, u - workVector(slot, incidence[n + 2u + 2u * e]));
  }
  return y;
}

// The same product of an arena vector (CG's warm start: A x₀).
fn productOf(i: u32, vector: u32, system: vec3<f32>) -> vec3<f32> {
  let n = params.particleCount;
  if (particleMasses[i].y == 0.0) {
    return vec3<f32>(0.0);
  }
  let u = loadVector(vector, i);
  var y = system.x * particleMasses[i].x * u;
  for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
    let s = incidence[n + 1u + 2u * e] >> 1u;
    y += springApply(s, system.y, system.z, u - loadVector(vector, incidence[n + 2u + 2u * e]));
  }
  return y;
}

// P⁻¹ per particle (work slots 4, 5): the inverse of α m I + Σ_s (β c n nᵀ + γ J_s), by cofactors
// (block), or of its diagonal (scalar); 0 on fixed particles.
fn diagonalInverse(local: u32, system: vec3<f32>) {
  let n = params.particleCount;
  for (var i = local; i < n; i += workgroupSize) {
    var d = vec3<f32>(system.x * particleMasses[i].x);
    var o = vec3<f32>(0.0);
    for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
      let s = incidence[n + 1u + 2u * e] >> 1u;
      let direction = work[6u * params.particleCount + 2u * s].xyz;
      let k = work[6u * params.particleCount + 2u * s + 1u];
      let along = system.z * k.y + system.y * k.z;
      d += system.z * k.x + along * direction * direction;
      o += along * vec3<f32>(direction.x * direction.y, direction.x * direction.z, direction.y * direction.z);
    }
    var inverseD = vec3<f32>(0.0);
    var inverseO = vec3<f32>(0.0);
    if (particleMasses[i].y > 0.0) {
      if (settings.preconditioner == 1u) {
        inverseD = 1.0 / d;
      } else {
        let cxx = d.y * d.z - o.z * o.z;
        let cxy = o.y * o.z - o.x * d.z;
        let cxz = o.x * o.z - o.y * d.y;
        let determinant = d.x * cxx + o.x * cxy + o.y * cxz;
        inverseD = vec3<f32>(cxx, d.x * d.z - o.y * o.y, d.x * d.y - o.x * o.x) / determinant;
        inverseO = vec3<f32>(cxy, cxz, o.x * o.y - d.x * o.z) / determinant;
      }
    }
    setWork(4u, i, inverseD);
    setWork(5u, i, inverseO);
  }
  storageBarrier();
}

// z = P⁻¹ r (identity when unpreconditioned, 0 on fixed particles), returns this thread's (r·z, r·r).
fn precondition(local: u32) -> vec2<f32> {
  var sums = vec2<f32>(0.0);
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    let r = workVector(0u, i);
    var z = select(vec3<f32>(0.0), r, particleMasses[i].y > 0.0);
    if (settings.preconditioner != 0u) {
      let d = workVector(4u, i);
      let o = workVector(5u, i);
      z = vec3<f32>(d.x * r.x + o.x * r.y + o.y * r.z, o.x * r.x + d.y * r.y + o.z * r.z, o.y * r.x + o.z * r.y + d.z * r.z);
    }
    setWork(3u, i, z);
    sums += vec2<f32>(dot(r, z), dot(r, r));
  }
  return sums;
}

// Records a solve's outcome (implicit-ops.ts solve).
fn recordSolve(local: u32, iterations: u32, relativeResidual: f32, converged: bool) {
  if (local == 0u) {
    control.linearSolves += 1u;
    control.linearIterations += iterations;
    control.maxLinearIterations = max(control.maxLinearIterations, iterations);
    control.lastResidual = relativeResidual;
    control.maxResidual = max(control.maxResidual, relativeResidual);
    control.unconvergedSolves += select(1u, 0u, converged);
  }
}

// `solve`: A x = b by CG preconditioned by P (linear-solver.ts solveLinear), x₀ = 0 or warm.
fn solve(local: u32, pc: u32, h: f32) {
  let b = word(pc + 1u);
  let x = word(pc + 2u);
  let system = vec3<f32>(coefficient(word(pc + 3u), h), coefficient(word(pc + 4u), h), coefficient(word(pc + 5u), h));
  if (settings.preconditioner != 0u) {
    diagonalInverse(local, system);
  }
  var own = vec4<f32>(0.0);
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    let bi = loadVector(b, i);
    var r = bi;
    if (settings.warmStart == 1u) {
      r = bi - productOf(i, x, system);
    } else {
      storeVector(x, i, vec3<f32>(0.0));
    }
    setWork(0u, i, r);
    own += vec4<f32>(dot(bi, bi), dot(r, r), 0.0, 0.0);
  }
  let start = sumAll(local, own);
  let bb = start.x;
  var rr = start.y;
  if (bb == 0.0 || rr == 0.0) {
    recordSolve(local, 0u, 0.0, true);
    return;
  }
  let tolerance2 = settings.tolerance2 * bb;
  var rz = sumAll(local, vec4<f32>(precondition(local), 0.0, 0.0)).x;
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    setWork(1u, i, workVector(3u, i));
  }
  storageBarrier();
  for (var k = 1u; k <= settings.maxIterations; k++) {
    var pq = 0.0;
    for (var i = local; i < params.particleCount; i += workgroupSize) {
      let q = product(i, 1u, system);
      setWork(2u, i, q);
      pq += dot(workVector(1u, i), q);
    }
    pq = sumAll(local, vec4<f32>(pq, 0.0, 0.0, 0.0)).x;
    if (!(pq > 0.0)) {
      recordSolve(local, k - 1u, sqrt(rr / bb), false);
      return;
    }
    let alpha = rz / pq;
    for (var i = local; i < params.particleCount; i += workgroupSize) {
      storeVector(x, i, loadVector(x, i) + alpha * workVector(1u, i));
      setWork(0u, i, workVector(0u, i) - alpha * workVector(2u, i));
    }
    let sums = sumAll(local, vec4<f32>(precondition(local), 0.0, 0.0));
    rr = sums.y;
    if (rr <= tolerance2) {
      recordSolve(local, k, sqrt(rr / bb), true);
      return;
    }
    let beta = sums.x / rz;
    rz = sums.x;
    for (var i = local; i < params.particleCount; i += workgroupSize) {
      setWork(1u, i, workVector(3u, i) + beta * workVector(1u, i));
    }
    storageBarrier();
  }
  recordSolve(local, settings.maxIterations, sqrt(rr / bb), false);
}

// ‖u‖² of an arena vector.
fn squaredNorm(local: u32, vector: u32) -> f32 {
  var own = 0.0;
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    let u = loadVector(vector, i);
    own += dot(u, u);
  }
  return sumAll(local, vec4<f32>(own, 0.0, 0.0, 0.0)).x;
}

// ---- the interpreter ----

// Runs the ops from `start` to END with step h; returns (1 if a Newton loop ended unconverged, the
// error norm, 1 if the norm is finite).
fn run(local: u32, start: u32, h: f32) -> vec3<f32> {
  var pc = start;
  var newtonFailed = 0.0;
  var error = vec2<f32>(0.0, 1.0);
  // Caribou's quantities (implicit-ops.ts caribou): ‖R‖², ‖δa‖², ‖Σ δa‖², ‖R₁‖²; the iteration.
  var residual2 = 0.0;
  var correction2 = 0.0;
  var total2 = 0.0;
  var firstResidual2 = 0.0;
  var iteration = 0u;
  loop {
    let op = word(pc);
    if (op == OP_END) {
      break;
    }
    var next = pc + OP_WORDS[op];
    switch op {
      case OP_EVAL: {
        evaluate(local, word(pc + 1u), word(pc + 2u), word(pc + 3u), coefficient(word(pc + 4u), h));
        if (local == 0u) {
          control.evaluations += 1u;
        }
      }
      case OP_COMBINE: {
        combine(local, pc, h);
        next = pc + 2u;
        for (var k = 0u; k < word(pc + 1u); k++) {
          next += 2u + 2u * word(next + 1u);
        }
      }
      case OP_NORM: {
        error = norm(local, pc, h);
      }
      case OP_JACOBIANS: {
        jacobians(local, word(pc + 1u), word(pc + 2u));
        if (local == 0u) {
          control.evaluations += 1u;
        }
      }
      case OP_RHS: {
        rhs(local, pc, h);
      }
      case OP_SOLVE: {
        solve(local, pc, h);
      }
      case OP_MEASURE: {
        let count = word(pc + 1u);
        for (var k = 0u; k < count; k++) {
          let value = squaredNorm(local, word(pc + 3u + 2u * k));
          switch word(pc + 2u + 2u * k) {
            case Q_RESIDUAL: { residual2 = value; }
            case Q_CORRECTION: { correction2 = value; }
            case Q_TOTAL: { total2 = value; }
            default: {}
          }
        }
        next = pc + 2u + 2u * count;
      }
      case OP_NEWTON_BEGIN: {
        iteration = 0u;
      }
      case OP_NEWTON_CHECK: {
        // 0: go on, 1: converged, 2: unconverged (implicit-ops.ts caribou).
        var outcome = 0u;
        let ta = settings.absoluteTolerance;
        if (iteration == 0u) {
          if (ta > 0.0 && residual2 <= ta * ta) {
            outcome = 1u;
          }
        } else {
          if (iteration == 1u) {
            firstResidual2 = residual2;
          }
          let tc = settings.correctionTolerance;
          let tr = settings.residualTolerance;
          if (!(residual2 == residual2) || !(correction2 == correction2) || total2 <= 0.0) {
            outcome = 2u;
          } else if ((tc > 0.0 && correction2 < tc * tc * total2) || (tr > 0.0 && residual2 < tr * tr * firstResidual2) || (ta > 0.0 && residual2 < ta * ta)) {
            outcome = 1u;
          }
        }
        if (outcome == 0u && iteration >= settings.newtonIterations) {
          outcome = 2u;
        }
        if (outcome != 0u) {
          if (local == 0u) {
            control.newtonIterations += iteration;
            control.estimatorIterations += select(0u, iteration, word(pc + 1u) == 1u);
            control.failedNewtonLoops += select(0u, 1u, outcome == 2u);
          }
          if (outcome == 2u) {
            newtonFailed = 1.0;
          }
          next = word(pc + 2u);
        }
      }
      case OP_NEWTON_NEXT: {
        iteration += 1u;
        next = word(pc + 1u);
      }
      default: {}
    }
    pc = next;
  }
  return vec3<f32>(newtonFailed, error);
}

// ---- the step-size controller (thread 0) ----

// (hi, lo) + h in two floats (Knuth's two-sum, then renormalised).
fn addTime(hi: f32, lo: f32, h: f32) -> vec2<f32> {
  let s = hi + h;
  let b = s - hi;
  let low = ((hi - (s - b)) + (h - b)) + lo;
  let top = s + low;
  return vec2<f32>(top, low - (top - s));
}

// target − t, s (a large number when there is no target).
fn remaining() -> f32 {
  if (control.bounded == 0u) {
    return 3.0e38;
  }
  return (control.targetHi - control.timeHi) + (control.targetLo - control.timeLo);
}

// A step in [minStep, maxStep]; a NaN, infinite or non-positive one is minStep.
fn clampStep(h: f32) -> f32 {
  if (isFinite(h) && h > 0.0) {
    return min(settings.maxStep, max(settings.minStep, h));
  }
  return settings.minStep;
}

// Hairer: clamp(safety · e^(−1/q), shrink, growth), ≤ 1 after a rejection (controller.ts stepFactor).
fn stepFactor(error: f32, finite: bool, afterRejection: bool) -> f32 {
  var factor = settings.shrinkLimit;
  if (finite && error == 0.0) {
    factor = settings.growthLimit;
  } else if (finite) {
    factor = settings.safetyFactor * pow(error, -1.0 / settings.estimateOrder);
  }
  factor = min(settings.growthLimit, max(settings.shrinkLimit, factor));
  return select(factor, min(factor, 1.0), afterRejection);
}

fn halt(reason: u32) {
  control.status = reason;
  control.haltStep = control.h;
}

// An accepted step: t advanced (or set to the target), the statistics, DONE when the batch's ask is met.
fn recordAccepted(error: f32, shortened: bool, landed: bool) {
  let h = control.h;
  if (landed) {
    control.timeHi = control.targetHi;
    control.timeLo = control.targetLo;
  } else {
    let t = addTime(control.timeHi, control.timeLo, h);
    control.timeHi = t.x;
    control.timeLo = t.y;
  }
  control.acceptedSteps += 1u;
  if (!shortened) {
    control.smallestStep = min(control.smallestStep, h);
  }
  control.largestStep = max(control.largestStep, h);
  control.lastErrorEstimate = error;
  control.maxErrorEstimate = max(control.maxErrorEstimate, error);
  if (control.stepsLeft > 0u) {
    control.stepsLeft -= 1u;
    if (control.stepsLeft == 0u) {
      control.status = DONE;
    }
  }
  if (landed) {
    control.status = DONE;
  }
}

// The step of the next attempt; false when the batch is over.
fn beginAttempt() -> bool {
  if (control.status != RUNNING) {
    return false;
  }
  control.attempts += 1u;
  if (settings.drake == 1u) {
    // drake-controller.ts drakeStep: h_max = min(target − t, maxStep), the ideal step limited.
    if (control.phase == DRAKE_NEW) {
      control.hMax = min(remaining(), settings.maxStep);
      control.workingMinimum = max(max(settings.minStep, 1e-14), 1e-14 * abs(control.timeHi));
      control.h = control.proposal;
      control.atMinimum = 0u;
      control.phase = DRAKE_RETRY;
    }
    if (control.phase == DRAKE_RETRY) {
      var h = control.h;
      control.clipped = 0u;
      if (control.hMax < 0.95 * h) {
        h = control.hMax;
        control.clipped = 1u;
      } else if (control.hMax < 1.001 * h) {
        h = control.hMax;
      }
      control.h = min(h, settings.maxStep);
    }
    return true;
  }
  // adaptive-simulation.ts stepTowards.
  let planned = min(control.proposal, settings.maxStep);
  let left = remaining();
  let clipped = planned >= left;
  let h = select(planned, left, clipped);
  control.planned = planned;
  control.h = h;
  control.clipped = select(0u, 1u, clipped);
  // A step too small to change t is as small as a step can be.
  control.atMinimum = select(0u, 1u, h <= settings.minStep || (!clipped && h <= 1.1e-16 * abs(control.timeHi)));
  return true;
}

// Hairer's decision after an attempt (stepTowards); true: accepted.
fn decideHairer(newtonFailed: bool, error: f32, finite: bool) -> bool {
  let h = control.h;
  let atMinimum = control.atMinimum == 1u;
  if (newtonFailed) {
    if (atMinimum) {
      halt(HALT_NEWTON);
      return false;
    }
    control.shrinksFromNewtonFailure += 1u;
    control.rejectedSteps += 1u;
    control.proposal = clampStep(h * settings.newtonFailureShrink);
    control.lastRejected = 1u;
    return false;
  }
  if (!(finite && error <= 1.0)) {
    if (atMinimum) {
      if (!finite) {
        halt(HALT_NON_FINITE);
        return false;
      }
      if (settings.onMinStepThrow == 1u) {
        halt(HALT_ACCURACY);
        return false;
      }
      control.minStepViolations += 1u;
      control.accuracyMissed = 1u;
    } else {
      control.shrinksFromErrorControl += 1u;
      control.rejectedSteps += 1u;
      control.proposal = clampStep(h * stepFactor(error, finite, true));
      control.lastRejected = 1u;
      return false;
    }
  }
  let clipped = control.clipped == 1u;
  let next = h * stepFactor(error, true, control.lastRejected == 1u);
  // A step shortened to land on the target says nothing against the step planned before it.
  control.proposal = clampStep(select(next, max(next, control.planned), clipped));
  control.lastRejected = 0u;
  recordAccepted(error, clipped, clipped);
  return true;
}

// Drake's CalcAdjustedStepSize (drake-controller.ts drakeAdjustedStep): (accepted, next step,
// at the minimum, below the minimum).
struct DrakeAdjustment {
  accepted: bool,
  next: f32,
  atMinimum: bool,
  belowMinimum: bool,
}

fn drakeAdjusted(error: f32, finite: bool, h: f32, atMinimumBefore: bool) -> DrakeAdjustment {
  let minimum = control.workingMinimum;
  if (!finite) {
    return DrakeAdjustment(false, max(settings.shrinkLimit * h, minimum), atMinimumBefore, false);
  }
  var next = select(settings.safetyFactor * h * pow(error, -1.0 / settings.estimateOrder), settings.growthLimit * h, error == 0.0);
  var atMinimum = atMinimumBefore;
  if (next > h) {
    atMinimum = false;
    if (next < 1.2 * h) {
      next = h;
    }
  }
  if (next < h && atMinimum) {
    return DrakeAdjustment(true, h, true, false);
  }
  if (next < h) {
    next = select(min(next, 0.9 * h), h, error <= 1.0);
  }
  next = max(min(next, settings.growthLimit * h), settings.shrinkLimit * h);
  next = min(next, settings.maxStep);
  let belowMinimum = next < minimum && next < h;
  next = max(next, minimum);
  if (next == minimum) {
    atMinimum = true;
    if (next < h) {
      return DrakeAdjustment(false, next, true, belowMinimum);
    }
  }
  return DrakeAdjustment(next >= h, next, atMinimum, belowMinimum);
}

// Drake's decision after an attempt (drakeStep, stepDrake); true: accepted.
fn decideDrake(newtonFailed: bool, error: f32, finite: bool) -> bool {
  let h = control.h;
  let minimum = control.workingMinimum;
  if (newtonFailed) {
    let halved = h * settings.newtonFailureShrink;
    if (h <= minimum || (halved < minimum && settings.onMinStepThrow == 1u)) {
      halt(HALT_NEWTON);
      return false;
    }
    control.h = max(minimum, halved);
    control.shrinksFromNewtonFailure += 1u;
    control.rejectedSteps += 1u;
    control.phase = DRAKE_RETRY_NEWTON;
    return false;
  }
  if (!finite && h <= minimum) {
    halt(HALT_NON_FINITE);
    return false;
  }
  let decision = drakeAdjusted(error, finite, h, control.atMinimum == 1u);
  if (decision.belowMinimum && settings.onMinStepThrow == 1u) {
    halt(HALT_ACCURACY);
    return false;
  }
  if (!decision.accepted) {
    control.atMinimum = select(0u, 1u, decision.atMinimum);
    control.shrinksFromErrorControl += 1u;
    control.rejectedSteps += 1u;
    control.h = decision.next;
    control.phase = DRAKE_RETRY;
    return false;
  }
  if (!(error <= 1.0)) {
    control.minStepViolations += 1u;
    control.accuracyMissed = 1u;
  }
  let limited = control.clipped == 1u;
  if (!limited) {
    control.proposal = decision.next;
  }
  control.phase = DRAKE_NEW;
  recordAccepted(error, limited, control.bounded == 1u && h == remaining());
  return true;
}

@compute @workgroup_size(workgroupSize)
fn fusedAdaptiveMain(@builtin(local_invocation_index) local: u32) {
  for (var attempt = 0u; attempt < settings.attemptsPerDispatch; attempt++) {
    var go = 0u;
    var needFirst = 0u;
    var hBits = 0u;
    if (local == 0u) {
      go = select(0u, 1u, beginAttempt());
      needFirst = 1u - control.firstValid;
      hBits = bitcast<u32>(control.h);
    }
    if (broadcast(local, go) == 0u) {
      break;
    }
    let h = bitcast<f32>(broadcast(local, hBits));
    if (broadcast(local, needFirst) == 1u) {
      run(local, settings.firstPc, h);
      if (local == 0u) {
        control.firstValid = 1u;
      }
    }
    let result = run(local, settings.attemptPc, h);
    var accepted = 0u;
    if (local == 0u) {
      let newtonFailed = result.x > 0.0;
      let finite = result.z > 0.0;
      var decision = false;
      if (settings.drake == 1u) {
        decision = decideDrake(newtonFailed, result.y, finite);
      } else {
        decision = decideHairer(newtonFailed, result.y, finite);
      }
      accepted = select(0u, 1u, decision);
    }
    if (broadcast(local, accepted) == 1u) {
      run(local, settings.acceptPc, h);
      if (local == 0u) {
        control.firstValid = 0u;
      }
    }
  }
}
