// Fused adaptive integration for small systems (issue 10, "a GPU that never waits on the CPU"):
// one workgroup runs a batch of attempted steps of an adaptive program — its ops, the step-size
// controller, the accept/reject decision — in one dispatch, with barriers between the ops instead
// of dispatches. Mirrors, op for op, the CPU executor (src/backends/cpu/executor.ts,
// implicit-ops.ts, linear-solver.ts PCG, error-norm.ts) and the controllers
// (src/simulation/adaptive-simulation.ts stepTowards, drake-controller.ts). Each thread takes the
// particles local, local + workgroupSize, … (and their springs' states, one per incidence entry);
// sums run over a fixed tree: deterministic.
// The program's three blocks are runFirst (after each acceptance), runAttempt and runAccept, each
// returning (1 if a Newton loop ended unconverged, the error norm, 1 if the norm is finite):
// generated per program by src/backends/webgpu/fused-program.ts as the program's ops called in
// sequence (its Newton loops as loops), or fused-interpreter.wgsl's, which runs any program from
// `code`. Prepended: common.wgsl, program-vectors.wgsl (params, positions, velocities, arena),
// then, in this order (src/backends/webgpu/kernels.ts), fused-common.wgsl (opcodes, structs,
// bindings, sums), fused-ops.wgsl, fused-solve.wgsl, fused-controller.wgsl; here the entry point;
// after it, the blocks.

// The next attempt, decided by thread 0 (fused-controller.wgsl beginAttempt) and broadcast:
// (1 to go on, 1 if `first` must run first, the bits of h); 0 to go on when the batch is over or
// this dispatch has run `index` = attemptsPerDispatch attempts.
fn nextAttempt(local: u32, index: u32) -> vec3<u32> {
  var go = 0u;
  var needFirst = 0u;
  var hBits = 0u;
  if (local == 0u && index < settings.attemptsPerDispatch) {
    go = select(0u, 1u, beginAttempt());
    needFirst = 1u - control.firstValid;
    hBits = bitcast<u32>(control.h);
  }
  return broadcast(local, vec4<u32>(go, needFirst, hBits, 0u)).xyz;
}

@compute @workgroup_size(workgroupSize)
fn fusedAdaptiveMain(@builtin(local_invocation_index) local: u32) {
  var next = nextAttempt(local, 0u);
  var index = 0u;
  // Tested at the end (fused-common.wgsl: SwiftShader would run a body once more after a test at
  // the top fails, here a whole attempt).
  if (next.x == 1u) {
    loop {
      let h = bitcast<f32>(next.z);
      if (next.y == 1u) {
        runFirst(local, h);
        if (local == 0u) {
          control.firstValid = 1u;
        }
      }
      let result = runAttempt(local, h);
      var accepted = 0u;
      if (local == 0u) {
        let newtonFailed = result.x > 0.0;
        let finite = result.z > 0.0;
        var decision = false;
        if (drakeControl == 1u) {
          decision = decideDrake(newtonFailed, result.y, finite);
        } else {
          decision = decideHairer(newtonFailed, result.y, finite);
        }
        accepted = select(0u, 1u, decision);
      }
      if (broadcast(local, vec4<u32>(accepted)).x == 1u) {
        runAccept(local, h);
        if (local == 0u) {
          control.firstValid = 0u;
        }
      }
      continuing {
        index++;
        next = nextAttempt(local, index);
        break if next.x == 0u;
      }
    }
  }
}
