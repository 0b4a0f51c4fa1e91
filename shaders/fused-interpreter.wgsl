// Fused adaptive integration, interpreted (shaders/fused-adaptive.wgsl's blocks when a program
// runs from `code`, fused-program.ts's word stream): one kernel for every program, compiled once
// per device; each op reads its vectors and coefficients from `code` at pc. On SwiftShader, which
// runs every branch of an if or a switch under a lane mask, each interpreted op costs the bodies
// of all of them: the generated form (fused-program.ts fusedBlocks) calls the ops in sequence.

fn runFirst(local: u32, h: f32) -> vec3<f32> {
  return run(local, settings.firstPc, h);
}

fn runAttempt(local: u32, h: f32) -> vec3<f32> {
  return run(local, settings.attemptPc, h);
}

fn runAccept(local: u32, h: f32) -> vec3<f32> {
  return run(local, settings.acceptPc, h);
}

// Runs the ops from `start` to END with step h; returns (1 if a Newton loop ended unconverged, the
// error norm, 1 if the norm is finite).
fn run(local: u32, start: u32, h: f32) -> vec3<f32> {
  var pc = start;
  var newtonFailed = 0.0;
  var error = vec2<f32>(0.0, 1.0);
  // Caribou's quantities (implicit-ops.ts caribou): ‖R‖², ‖δa‖², ‖Σ δa‖², ‖x₀‖², ‖R₁‖²; the iteration.
  var residual2 = 0.0;
  var correction2 = 0.0;
  var total2 = 0.0;
  var start2 = 0.0;
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
        combineFromCode(local, pc, h);
        next = pc + 2u;
        for (var k = 0u; k < word(pc + 1u); k++) {
          next += 2u + 2u * word(next + 1u);
        }
      }
      case OP_NORM: {
        error = normFromCode(local, pc, h);
      }
      case OP_JACOBIANS: {
        jacobians(local, word(pc + 1u), word(pc + 2u), settings.exactJacobian);
        if (local == 0u) {
          control.evaluations += 1u;
        }
      }
      case OP_RHS: {
        rhsFromCode(local, pc, h);
      }
      case OP_SOLVE: {
        solveFromCode(local, pc, h);
      }
      case OP_MEASURE: {
        let count = word(pc + 1u);
        for (var k = 0u; k < count; k++) {
          let value = squaredNorm(local, word(pc + 3u + 2u * k));
          switch word(pc + 2u + 2u * k) {
            case Q_RESIDUAL: { residual2 = value; }
            case Q_CORRECTION: { correction2 = value; }
            case Q_TOTAL: { total2 = value; }
            case Q_START: { start2 = value; }
            default: {}
          }
        }
        next = pc + 2u + 2u * count;
      }
      case OP_NEWTON_BEGIN: {
        iteration = 0u;
      }
      case OP_NEWTON_CHECK: {
        let loopStep = bitcast<f32>(word(pc + 3u)) * h;
        let outcome = newtonOutcome(iteration, residual2, correction2, total2, start2, loopStep, &firstResidual2);
        if (outcome != 0u) {
          newtonFailed = max(newtonFailed, newtonEnded(local, iteration, word(pc + 1u), outcome));
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

// `combine` as the interpreter reads it from `code` at pc: up to two outputs from the old values,
// then written (terms summed last first, as the generated form's combineTerm sums).
fn combineFromCode(local: u32, pc: u32, h: f32) {
  let outputs = word(pc + 1u);
  let terms0 = word(pc + 3u);
  let second = pc + 4u + 2u * terms0;
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    var value0 = vec3<f32>(0.0);
    for (var j = terms0; j > 0u; j--) {
      let at = pc + 4u + 2u * (j - 1u);
      value0 += combineTerm(word(at), word(at + 1u), h, i);
    }
    var value1 = vec3<f32>(0.0);
    if (outputs == 2u) {
      for (var j = word(second + 1u); j > 0u; j--) {
        let at = second + 2u + 2u * (j - 1u);
        value1 += combineTerm(word(at), word(at + 1u), h, i);
      }
    }
    storeVector(word(pc + 2u), i, value0);
    if (outputs == 2u) {
      storeVector(word(second), i, value1);
    }
  }
  storageBarrier();
}

// `norm` as the interpreter reads it from `code` at pc.
fn normFromCode(local: u32, pc: u32, h: f32) -> vec2<f32> {
  let tolerances = vec4<f32>(coefficient(word(pc + 7u), h), coefficient(word(pc + 8u), h), coefficient(word(pc + 9u), h), coefficient(word(pc + 10u), h));
  return norm(local, vec2<u32>(word(pc + 1u), word(pc + 2u)), vec4<u32>(word(pc + 3u), word(pc + 4u), word(pc + 5u), word(pc + 6u)), tolerances, coefficient(word(pc + 11u), h));
}

// `rhs` as the interpreter reads it from `code` at pc.
fn rhsFromCode(local: u32, pc: u32, h: f32) {
  let scales = vec4<f32>(coefficient(word(pc + 5u), h), coefficient(word(pc + 6u), h), coefficient(word(pc + 7u), h), coefficient(word(pc + 8u), h));
  let terms = vec4<f32>(coefficient(word(pc + 9u), h), coefficient(word(pc + 10u), h), coefficient(word(pc + 11u), h), coefficient(word(pc + 12u), h));
  rhs(local, vec4<u32>(word(pc + 1u), word(pc + 2u), word(pc + 3u), word(pc + 4u)), scales, terms);
}

// `solve` as the interpreter reads it from `code` at pc, its vectors and modes from `settings`.
fn solveFromCode(local: u32, pc: u32, h: f32) {
  let system = vec3<f32>(coefficient(word(pc + 3u), h), coefficient(word(pc + 4u), h), coefficient(word(pc + 5u), h));
  let cg = vec4<u32>(settings.cgResidual, settings.cgDirection, settings.cgProduct, settings.cgPreconditioned);
  solve(local, word(pc + 1u), word(pc + 2u), system, cg, vec2<u32>(settings.preconditioner, settings.warmStart));
}
