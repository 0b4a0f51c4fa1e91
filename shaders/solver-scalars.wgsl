// The scalar steps of the solvers, one workgroup: sums the per-workgroup partials in a fixed
// tree order (deterministic), then thread 0 updates SolverControl according to `step.mode`
// (CPU mirror: src/cpu/linear-solver.ts and the Newton loops of src/cpu/cpu-implicit-simulation.ts).
// It also zeroes the indirect dispatch arguments of passes that must no longer run.

const CG_START: u32 = 0u;         // partials (r·z, b·b): rz, bb, rr = bb; done when b = 0
const CG_FIRST: u32 = 1u;         // partials (w·u, r·u, r·r) of r₀: α₀ = γ₀/δ₀, β₀ = 0 (cg-step.wgsl)
const CG_NEXT: u32 = 2u;          // partials (w·u, r·u, r·r) of r_{i+1}: converged when rr ≤ tol² bb; α, β
const JACOBI: u32 = 3u;           // partials (r·r): converged when rr ≤ tol² bb
const SOLVE_END: u32 = 4u;        // record the solve in the totals
const NEWTON_BEGIN: u32 = 5u;     // reset the Newton loop
const MEASURE: u32 = 6u;          // partials (‖u₀‖², …, ‖u₃‖²) into the quantities step.quantities names
const CARIBOU_CHECK: u32 = 7u;    // backward-euler criteria (spec/caribou-backward-euler.md)
const VARIATIONAL_CHECK: u32 = 8u;  // while ((i < max and change > newtonError) or i = 0)
const NEWTON_NEXT: u32 = 9u;      // i += 1
const NEWTON_END: u32 = 10u;      // release the Newton passes for what follows

// The quantities a MEASURE stores (src/integrators/program.ts NewtonQuantity); 0: none.
const RESIDUAL: u32 = 1u;    // ‖R‖²
const CORRECTION: u32 = 2u;  // ‖δa‖²
const TOTAL: u32 = 3u;       // ‖Σ δa‖²
const START: u32 = 4u;       // ‖q₀‖²
const CHANGE: u32 = 5u;      // ‖q_{i+1} − q_i‖²

struct ScalarStep {
  mode: u32,
  quantities: vec4<u32>,  // MEASURE: the quantity each partial goes to; checks: x = 1, an estimator's loop;
                          // CG_FIRST: x = 1, a warm start; CG_START, SOLVE_END: x = 1, resumed
  stepFraction: f32,      // CARIBOU_CHECK: the loop's step as a fraction of solver.h (program.ts)
}

// (no vectors: scalars only)

@group(0) @binding(4) var<uniform> step: ScalarStep;
@group(0) @binding(5) var<uniform> solver: SolverParams;
@group(0) @binding(6) var<storage, read> partials: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> control: SolverControl;
// Multigrid: the indirect arguments of each coarse level's passes, and their full counts. They
// follow cgGroups: running while a solve runs, zero once it is done (one zero entry when unused).
@group(0) @binding(8) var<storage, read_write> levelGroups: array<vec4<u32>>;
@group(0) @binding(9) var<storage, read> levelGroupsFull: array<vec4<u32>>;

@compute @workgroup_size(groupThreads)
fn solverScalarsMain(@builtin(local_invocation_index) local: u32) {
  var sum = vec4<f32>(0.0);
  for (var k = local; k < solver.partialCount; k += groupThreads) {
    sum += partials[k];
  }
  let total = workgroupSum(local, sum);
  if (local != 0u) {
    return;
  }
  // A linear-solver step acts only while its solve runs (its passes have workgroups to launch).
  let solving = control.cgGroups.x != 0u;
  switch (step.mode) {
    case CG_START: {
      control.rz = total.x;
      control.rr = total.y;
      control.cgIterations = 0u;
      if (step.quantities.x == 1u) {
        // Resumed after contacts were released (src/integrators/program.ts `solve`): done at once
        // when r is within the tolerance of the solve it resumes, else measured against the larger
        // of that solve's reference and r₀·r₀ (the first may be 0: all its residual filtered).
        let done = total.y <= solver.tolerance2 * control.bb;
        control.bb = max(control.bb, total.y);
        control.cgConverged = select(0u, 1u, done);
        setSolving(control.newtonDone == 0u && !done && total.y <= 3.4e38);
      } else {
        control.bb = total.y;
        control.cgConverged = select(0u, 1u, total.y == 0.0);
        setSolving(control.newtonDone == 0u && total.y > 0.0);
      }
    }
    case CG_FIRST: {
      if (solving) {
        control.beta = 0.0;
        control.rz = total.y;
        // A cold start has r₀ = b (nothing to check: rr = bb, even when both overflowed); a
        // warm start (step.quantities.x = 1) may already be converged.
        cgContinue(total.z, total.x, step.quantities.x == 1u);
      }
    }
    case CG_NEXT: {
      if (solving) {
        control.cgIterations += 1u;
        // Chronopoulos–Gear: β_{i+1} = γ_{i+1}/γ_i, α_{i+1} = γ_{i+1} / (δ − β_{i+1} γ_{i+1}/α_i).
        let beta = total.y / control.rz;
        control.beta = beta;
        control.rz = total.y;
        cgContinue(total.z, total.x - beta * total.y / control.alpha, true);
      }
    }
    case JACOBI: {
      if (!solving) {
        return;
      }
      control.cgIterations += 1u;
      control.rr = total.x;
      if (total.x <= solver.tolerance2 * control.bb) {
        control.cgConverged = 1u;
        setSolving(false);
      } else if (control.cgIterations >= solver.maxIterations || !(total.x <= 3.4e38)) {
        setSolving(false);  // at the cap, or NaN/Inf: unconverged
      }
    }
    case SOLVE_END: {
      // A resumed solve (x = 1) that had nothing to do is no solve.
      let idle = step.quantities.x == 1u && control.cgIterations == 0u && control.cgConverged == 1u;
      if (control.newtonDone == 0u && !idle) {
        var relative = 0.0;
        if (control.bb > 0.0) {
          relative = sqrt(control.rr / control.bb);
        }
        control.linearSolves += 1u;
        control.linearIterations += control.cgIterations;
        control.maxLinearIterations = max(control.maxLinearIterations, control.cgIterations);
        control.lastResidual = relative;
        control.maxResidual = max(control.maxResidual, relative);
        if (control.cgConverged == 0u) {
          control.unconvergedSolves += 1u;
        }
      }
      // A resumed solve's loop is shorter than maxIterations: it may end still running.
      setSolving(false);
    }
    case NEWTON_BEGIN: {
      control.newtonIteration = 0u;
      control.newtonDone = 0u;
      control.newtonConverged = 0u;
      control.correction2 = 0.0;
      control.total2 = 0.0;
      control.change2 = 0.0;
    }
    case MEASURE: {
      if (control.newtonDone == 0u) {
        for (var k = 0u; k < 4u; k++) {
          store(step.quantities[k], total[k]);
        }
      }
    }
    case CARIBOU_CHECK: {
      if (control.newtonDone == 0u) {
        let i = control.newtonIteration;
        let r2 = control.residual2;
        var converged = false;
        var stop = false;
        if (i == 0u) {
          converged = solver.absoluteTolerance > 0.0 && r2 <= solver.absoluteTolerance * solver.absoluteTolerance;
        } else {
          if (i == 1u) {
            control.firstResidual2 = r2;
          }
          // NaN compares false: a NaN residual or correction ends the loop unconverged.
          stop = !(r2 == r2) || !(control.correction2 == control.correction2) || control.total2 <= 0.0;
          if (!stop) {
            let tc = solver.correctionTolerance;
            let tr = solver.residualTolerance;
            let ta = solver.absoluteTolerance;
            // Weft's round-off floor (program.ts NewtonCriterion): (h² ‖δa‖)² ≤ u² ‖x₀‖².
            let h = step.stepFraction * solver.h;
            converged = (tc > 0.0 && control.correction2 < tc * tc * control.total2)
              || (tr > 0.0 && r2 < tr * tr * control.firstResidual2)
              || (ta > 0.0 && r2 < ta * ta)
              || h * h * h * h * control.correction2 <= F32_UNIT_ROUNDOFF * F32_UNIT_ROUNDOFF * control.start2;
          }
        }
        if (converged || stop || i >= solver.newtonIterations) {
          finishNewton(converged);
        }
      }
    }
    case VARIATIONAL_CHECK: {
      if (control.newtonDone == 0u) {
        let i = control.newtonIteration;
        var scale = 1.0;
        if (control.start2 > 0.0) {
          scale = control.start2;
        }
        let error = sqrt(control.change2 / scale);
        let going = (i < solver.newtonIterations && error > solver.newtonError) || i == 0u;
        if (!going) {
          finishNewton(error <= solver.newtonError);
        }
      }
    }
    case NEWTON_NEXT: {
      if (control.newtonDone == 0u) {
        control.newtonIteration += 1u;
      }
    }
    case NEWTON_END: {
      control.newtonDone = 0u;
      control.newtonParticleGroups = solver.particleGroups;
      control.newtonSpringGroups = solver.springGroups;
    }
    default: {}
  }
}

// After the reduction of r_i (rr = r·r): stop converged when rr ≤ tol² bb, unconverged at the
// iteration cap or on a breakdown (p·Ap = `curvature` ≤ 0: A not positive definite); else α = γ/p·Ap.
fn cgContinue(rr: f32, curvature: f32, check: bool) {
  control.rr = rr;
  if (check && rr <= solver.tolerance2 * control.bb) {
    control.cgConverged = 1u;
    setSolving(false);
  } else if (control.cgIterations >= solver.maxIterations || !(curvature > 0.0)) {
    setSolving(false);
  } else {
    control.alpha = control.rz / curvature;
  }
}

// cgGroups and every coarse level's counts: full while a solve runs, zero once it is done.
fn setSolving(run: bool) {
  control.cgGroups = select(vec4<u32>(0u), solver.particleGroups, run);
  for (var l = 0u; l < arrayLength(&levelGroups); l++) {
    levelGroups[l] = select(vec4<u32>(0u), levelGroupsFull[l], run);
  }
}

fn store(quantity: u32, value: f32) {
  switch (quantity) {
    case RESIDUAL: { control.residual2 = value; }
    case CORRECTION: { control.correction2 = value; }
    case TOTAL: { control.total2 = value; }
    case START: { control.start2 = value; }
    case CHANGE: { control.change2 = value; }
    default: {}
  }
}

fn finishNewton(converged: bool) {
  control.newtonDone = 1u;
  control.newtonConverged = select(0u, 1u, converged);
  control.lastConverged = control.newtonConverged;
  control.newtonIterations += control.newtonIteration;
  if (step.quantities.x == 1u) {
    control.estimatorIterations += control.newtonIteration;
  }
  if (!converged) {
    control.unconvergedSteps += 1u;
  }
  setSolving(false);
  control.newtonParticleGroups = vec4<u32>(0u);
  control.newtonSpringGroups = vec4<u32>(0u);
}
