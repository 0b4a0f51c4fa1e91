// Fused adaptive integration, shared part (shaders/fused-adaptive.wgsl): the opcodes, the
// settings and the controller's state, the bindings, and the workgroup's sums and broadcasts.
//
// The fused kernels' loops test at their end (`loop { if (i < n) { … } continuing { …; break if
// i >= n; } }`), not at their top (`for`): SwiftShader jumps over no block, so a loop whose test at
// the top fails runs its body once more under an empty lane mask — a `for` over the particles
// with one particle per thread costs two bodies, and nested in it an incidence loop three.

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
const OP_NEWTON_CHECK: u32 = 9u;   // [NEWTON_CHECK, estimator, pc after the loop, the loop's step fraction (f32 bits)]
const OP_NEWTON_NEXT: u32 = 10u;   // [NEWTON_NEXT, pc of the residual]
const OP_WORDS: array<u32, 11> = array<u32, 11>(1u, 5u, 0u, 12u, 3u, 13u, 6u, 0u, 1u, 4u, 2u);

// Newton quantities of MEASURE (src/integrators/program.ts NewtonQuantity).
const Q_RESIDUAL: u32 = 1u;
const Q_CORRECTION: u32 = 2u;
const Q_TOTAL: u32 = 3u;
const Q_START: u32 = 4u;

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

// Which step-size controller runs: 1 Drake's, 0 Hairer's (the stepper's pipeline constant). An
// `override`, not a setting: SwiftShader runs both branches of an `if` on a uniform, so a setting
// made each attempt pay both controllers; a constant's dead branch is folded away.
override drakeControl: u32 = 0u;

// The program and the controller's constants, written once.
struct FusedSettings {
  firstPc: u32,              // `first` (after each acceptance), `attempt`, `accept`
  attemptPc: u32,
  acceptPc: u32,
  attemptsPerDispatch: u32,
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
  cgResidual: u32,           // arena references of CG's r, p, q = A p, z = P⁻¹ r
  cgDirection: u32,
  cgProduct: u32,
  cgPreconditioned: u32,
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
// Per particle P⁻¹ as (xx, yy, zz) and (xy, xz, yz); then per incidence entry e (from 2n, the
// spring's state as its endpoint sees it, fused-ops.wgsl jacobians): (n, f) and (k g, k (1 − g), c,
// 0), as implicit-common.wgsl's SpringState.
@group(0) @binding(11) var<storage, read_write> work: array<vec4<f32>>;

var<workgroup> scratch: array<vec4<f32>, workgroupSize>;
var<workgroup> broadcastValue: vec4<f32>;
var<workgroup> sharedWords: vec4<u32>;

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

// Reductions and broadcasts wait at barriers, and on SwiftShader each barrier is a switch of
// coroutines (~0.2 µs here, as much as a pass over two particles): so a reduction waits at three
// (`scratch` written, the total written, its uniform load) and a broadcast at two.

// scratch[0] = the tree of `scratch` (level by level, scratch[l] ⊕= scratch[l + stride] for
// l < stride, stride = workgroupSize/2, …, 1), ⊕ the sum, with `largestY` the maximum in y; after a
// barrier, in thread 0 only where the workgroup is one SIMD group (a CPU adapter: no barrier per
// level), else a level per barrier. The same additions in the same order either way.
fn reduceScratch(local: u32, largestY: bool) {
  if (workgroupSize <= 4u) {
    if (local == 0u && workgroupSize > 1u) {
      var stride = workgroupSize / 2u;
      loop {
        var l = 0u;
        loop {
          scratch[l] = combinePair(scratch[l], scratch[l + stride], largestY);
          continuing {
            l++;
            break if l >= stride;
          }
        }
        continuing {
          stride /= 2u;
          break if stride == 0u;
        }
      }
    }
  } else {
    var stride = workgroupSize / 2u;
    loop {
      if (local < stride) {
        scratch[local] = combinePair(scratch[local], scratch[local + stride], largestY);
      }
      workgroupBarrier();
      continuing {
        stride /= 2u;
        break if stride == 0u;
      }
    }
  }
}

fn combinePair(a: vec4<f32>, b: vec4<f32>, largestY: bool) -> vec4<f32> {
  return select(a + b, vec4<f32>(a.x + b.x, max(a.y, b.y), a.zw + b.zw), largestY);
}

// `value` reduced over the workgroup (reduceScratch), the same uniform value in every thread.
fn reduceAll(local: u32, value: vec4<f32>, largestY: bool) -> vec4<f32> {
  scratch[local] = value;
  workgroupBarrier();
  reduceScratch(local, largestY);
  if (local == 0u) {
    broadcastValue = scratch[0];
  }
  return workgroupUniformLoad(&broadcastValue);
}

// The sum of `value` over the workgroup (a fixed tree), the same uniform value in every thread.
fn sumAll(local: u32, value: vec4<f32>) -> vec4<f32> {
  return reduceAll(local, value, false);
}

// Thread 0's words to every thread, uniform (decisions taken by the controller in thread 0). No
// barrier before the write: every thread's read of the last broadcast ended at its uniform load's
// closing barrier.
fn broadcast(local: u32, value: vec4<u32>) -> vec4<u32> {
  if (local == 0u) {
    sharedWords = value;
  }
  return workgroupUniformLoad(&sharedWords);
}

// P⁻¹ of particle i: slot 0 (xx, yy, zz), slot 1 (xy, xz, yz).
fn workVector(slot: u32, i: u32) -> vec3<f32> {
  return work[2u * i + slot].xyz;
}

fn setWork(slot: u32, i: u32, value: vec3<f32>) {
  work[2u * i + slot] = vec4<f32>(value, 0.0);
}
