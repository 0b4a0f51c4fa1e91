// Fused adaptive integration for small systems (issue 10, "a GPU that never waits on the CPU"):
// one workgroup runs a batch of attempted steps of an adaptive program — its ops interpreted
// from `code`, the step-size controller, the accept/reject decision — in one dispatch, with
// barriers between the ops instead of dispatches. Mirrors, op for op, the CPU executor
// (src/backends/cpu/executor.ts, implicit-ops.ts, linear-solver.ts PCG, error-norm.ts) and the
// controllers (src/simulation/adaptive-simulation.ts stepTowards, drake-controller.ts); the
// program is compiled by src/backends/webgpu/fused-program.ts. Each thread takes the particles
// (springs) local, local + workgroupSize, …; sums run over a fixed tree: deterministic.
// Prepended: common.wgsl, program-vectors.wgsl (params, positions, velocities, arena), then, in
// this order (src/backends/webgpu/kernels.ts), fused-common.wgsl (opcodes, structs, bindings,
// sums), fused-ops.wgsl, fused-solve.wgsl, fused-controller.wgsl; here the interpreter and the
// entry point.

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
