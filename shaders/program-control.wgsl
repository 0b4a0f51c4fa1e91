// The fixed-point corrector's control on the GPU, one thread (CPU mirror: src/backends/cpu/
// executor.ts correct): every sweep is encoded up to maxIterations, its passes dispatched
// indirectly through the arguments below, and once a sweep's change is within the tolerance
// (scaled max-norm ≤ 1, from program-norm.wgsl's partials) DECIDE zeroes those arguments, so the
// sweeps left launch no workgroups. The CPU never waits inside a step.

struct CorrectorControl {
  particleX: u32,            // indirect arguments of the per-particle passes of a sweep
  particleY: u32,
  particleZ: u32,
  springX: u32,              // … of the per-spring pass
  springY: u32,
  springZ: u32,
  groupsParticleX: u32,      // the full workgroup counts, restored by BEGIN
  groupsParticleY: u32,
  groupsSpringX: u32,
  groupsSpringY: u32,
  partialCount: u32,         // workgroups of the norm pass (one partial each)
  done: u32,                 // 1 once this step's corrector has converged, 2 once a sweep was NaN or Inf
  iterations: u32,           // sweeps in this step
  totalIterations: u32,      // sweeps in all steps
  maxIterationsInStep: u32,
  unconvergedSteps: u32,     // steps that reached maxIterations above the tolerance
  converged: u32,            // whether the last step's corrector converged
  lastCorrection: f32,       // scaled max-norm of the last sweep's change
  lastFinite: u32,           // 0 when that change had NaN or Inf (lastCorrection is then NaN)
}

struct ControlOp {
  mode: u32,
  check: u32,  // 0: a fixed number of sweeps (PECE): never done early, never unconverged
}

const BEGIN: u32 = 0u;
const DECIDE: u32 = 1u;
const END: u32 = 2u;

@group(0) @binding(4) var<uniform> op: ControlOp;
@group(0) @binding(5) var<storage, read_write> control: CorrectorControl;
// From program-norm.wgsl: (Σ terms², max |term|, non-finite flag, 0) per workgroup.
@group(0) @binding(6) var<storage, read> partials: array<vec4<f32>>;

fn release(on: bool) {
  control.particleX = select(0u, control.groupsParticleX, on);
  control.particleY = select(0u, control.groupsParticleY, on);
  control.particleZ = select(0u, 1u, on);
  control.springX = select(0u, control.groupsSpringX, on);
  control.springY = select(0u, control.groupsSpringY, on);
  control.springZ = select(0u, 1u, on);
}

@compute @workgroup_size(1)
fn programControlMain() {
  if (op.mode == BEGIN) {
    control.done = 0u;
    control.iterations = 0u;
    release(true);
    return;
  }
  if (op.mode == END) {
    control.totalIterations += control.iterations;
    control.maxIterationsInStep = max(control.maxIterationsInStep, control.iterations);
    let converged = op.check == 0u || control.done == 1u;
    control.converged = select(0u, 1u, converged);
    control.unconvergedSteps += select(1u, 0u, converged);
    return;
  }
  if (control.done != 0u) {
    return;
  }
  control.iterations += 1u;
  var largest = 0.0;
  var finite = true;
  for (var k = 0u; k < control.partialCount; k++) {
    largest = max(largest, partials[k].y);
    finite = finite && partials[k].z == 0.0;
  }
  control.lastCorrection = largest;
  control.lastFinite = select(0u, 1u, finite);
  if (op.check == 1u && finite && largest <= 1.0) {
    control.done = 1u;
    release(false);
  } else if (!finite) {
    control.done = 2u;  // a NaN or Inf sweep cannot recover: stopped, unconverged
    release(false);
  }
}
