// Fused adaptive integration (shaders/fused-adaptive.wgsl): the linear solve, CG preconditioned
// by the diagonal blocks, and the Newton loop's norms. CPU mirror: src/backends/cpu/
// linear-solver.ts solveLinear, implicit-passes.ts diagonalInverse. A solve's vectors and modes
// are arguments (the generated form passes literals, which fold; the interpreter, `settings`):
// `cg` = the arena references of CG's (r, p, q = A p, z = P⁻¹ r), `preconditioner` 0: none,
// 1: scalar diagonal, 2: 3×3 block diagonal.

// A particle's P⁻¹, symmetric: (xx, yy, zz) and (xy, xz, yz).
struct BlockInverse {
  diagonal: vec3<f32>,
  offDiagonal: vec3<f32>,
}

// P⁻¹ of particle i, stored (work slots 0, 1) and returned: the inverse of α m I + Σ_s (β c n nᵀ +
// γ J_s), by cofactors (block), or of its diagonal (scalar); 0 on fixed particles.
fn diagonalInverseAt(i: u32, system: vec3<f32>, preconditioner: u32) -> BlockInverse {
  let n = params.particleCount;
  var d = vec3<f32>(system.x * particleMasses[i].x);
  var o = vec3<f32>(0.0);
  let end = incidence[i + 1u];
  var e = incidence[i];
  loop {
    if (e < end) {
      let direction = work[2u * n + 2u * e].xyz;
      let k = work[2u * n + 2u * e + 1u];
      let along = system.z * k.y + system.y * k.z;
      d += system.z * k.x + along * direction * direction;
      o += along * vec3<f32>(direction.x * direction.y, direction.x * direction.z, direction.y * direction.z);
    }
    continuing {
      e++;
      break if e >= end;
    }
  }
  var inverseD = vec3<f32>(0.0);
  var inverseO = vec3<f32>(0.0);
  if (particleMasses[i].y > 0.0) {
    if (preconditioner == 1u) {
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
  setWork(0u, i, inverseD);
  setWork(1u, i, inverseO);
  return BlockInverse(inverseD, inverseO);
}

// P⁻¹ of particle i as diagonalInverseAt stored it.
fn storedInverse(i: u32) -> BlockInverse {
  return BlockInverse(workVector(0u, i), workVector(1u, i));
}

// z_i = P⁻¹ r_i (identity when unpreconditioned, 0 on fixed particles) stored in `z`; returns r·z.
fn preconditionAt(i: u32, r: vec3<f32>, z: u32, preconditioner: u32, inverse: BlockInverse) -> f32 {
  var value = select(vec3<f32>(0.0), r, particleMasses[i].y > 0.0);
  if (preconditioner != 0u) {
    let d = inverse.diagonal;
    let o = inverse.offDiagonal;
    value = vec3<f32>(d.x * r.x + o.x * r.y + o.y * r.z, o.x * r.x + d.y * r.y + o.z * r.z, o.y * r.x + o.z * r.y + d.z * r.z);
  }
  storeVector(z, i, value);
  return dot(r, value);
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

// A solve's first pass at particle i for x₀ = 0 (solve below; the generated blocks also run it in
// the pass that computes b, fused-blocks.ts): P⁻¹ stored, x = 0, r₀ = b_i, z₀ = P⁻¹ r₀; returns r₀·z₀.
fn solveStartAt(i: u32, bi: vec3<f32>, x: u32, system: vec3<f32>, cg: vec4<u32>, preconditioner: u32) -> f32 {
  var inverse = BlockInverse(vec3<f32>(0.0), vec3<f32>(0.0));
  if (preconditioner != 0u) {
    inverse = diagonalInverseAt(i, system, preconditioner);
  }
  storeVector(x, i, vec3<f32>(0.0));
  storeVector(cg.x, i, bi);
  return preconditionAt(i, bi, cg.w, preconditioner, inverse);
}

// `solve`: A x = b by CG preconditioned by P (linear-solver.ts solveLinear), A = α M + β B + γ K
// (`system`), x₀ = 0 or warm (`modes`: (preconditioner, 1 for a warm start)). Each thread's
// particles are updated in one pass where nothing crosses threads: P⁻¹, r₀, z₀ and the sums b·b,
// r·r, r·z; then solveFrom.
fn solve(local: u32, b: u32, x: u32, system: vec3<f32>, cg: vec4<u32>, modes: vec2<u32>) {
  let preconditioner = modes.x;
  var own = vec4<f32>(0.0);
  var i = local;
  loop {
    if (i < params.particleCount) {
      let bi = loadVector(b, i);
      if (modes.y == 1u) {
        var inverse = BlockInverse(vec3<f32>(0.0), vec3<f32>(0.0));
        if (preconditioner != 0u) {
          inverse = diagonalInverseAt(i, system, preconditioner);
        }
        let r = bi - product(i, x, system);
        storeVector(cg.x, i, r);
        own += vec4<f32>(dot(bi, bi), dot(r, r), preconditionAt(i, r, cg.w, preconditioner, inverse), 0.0);
      } else {
        own += vec4<f32>(dot(bi, bi), dot(bi, bi), solveStartAt(i, bi, x, system, cg, preconditioner), 0.0);
      }
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  solveFrom(local, x, system, cg, preconditioner, sumAll(local, own).xyz);
}

// CG's iterations after the first pass, from `start` = (b·b, r₀·r₀, r₀·z₀): per iteration p (z₀
// first, then z + β p), q = A p and p·q, and x, r, z and their sums. The iterations stop when
// r·r ≤ tol² b·b, at the cap, or where p·q ≤ 0 (CG stalled).
fn solveFrom(local: u32, x: u32, system: vec3<f32>, cg: vec4<u32>, preconditioner: u32, start: vec3<f32>) {
  var i = local;
  let bb = start.x;
  var rr = start.y;
  var rz = start.z;
  // As recorded when b or r₀ is 0: no iteration, converged, residual 0.
  var iterations = 0u;
  var converged = true;
  if (bb != 0.0 && rr != 0.0) {
    iterations = settings.maxIterations;
    converged = false;
  }
  if (!converged && settings.maxIterations > 0u) {
    let tolerance2 = settings.tolerance2 * bb;
    var beta = 0.0;
    var k = 1u;
    loop {
      i = local;
      loop {
        if (i < params.particleCount) {
          let z = loadVector(cg.w, i);
          storeVector(cg.y, i, select(z + beta * loadVector(cg.y, i), z, k == 1u));
        }
        continuing {
          i += workgroupSize;
          break if i >= params.particleCount;
        }
      }
      storageBarrier();
      var pq = 0.0;
      i = local;
      loop {
        if (i < params.particleCount) {
          let q = product(i, cg.y, system);
          storeVector(cg.z, i, q);
          pq += dot(loadVector(cg.y, i), q);
        }
        continuing {
          i += workgroupSize;
          break if i >= params.particleCount;
        }
      }
      pq = sumAll(local, vec4<f32>(pq, 0.0, 0.0, 0.0)).x;
      if (!(pq > 0.0)) {
        iterations = k - 1u;
        break;
      }
      let alpha = rz / pq;
      var sums = vec2<f32>(0.0);
      i = local;
      loop {
        if (i < params.particleCount) {
          storeVector(x, i, loadVector(x, i) + alpha * loadVector(cg.y, i));
          let r = loadVector(cg.x, i) - alpha * loadVector(cg.z, i);
          storeVector(cg.x, i, r);
          sums += vec2<f32>(preconditionAt(i, r, cg.w, preconditioner, storedInverse(i)), dot(r, r));
        }
        continuing {
          i += workgroupSize;
          break if i >= params.particleCount;
        }
      }
      sums = sumAll(local, vec4<f32>(sums, 0.0, 0.0)).xy;
      rr = sums.y;
      beta = sums.x / rz;
      rz = sums.x;
      if (rr <= tolerance2) {
        iterations = k;
        converged = true;
      }
      continuing {
        k++;
        break if converged || k > settings.maxIterations;
      }
    }
  }
  recordSolve(local, iterations, select(sqrt(rr / bb), 0.0, bb == 0.0 || rr == 0.0), converged);
}

// ‖u‖² of an arena vector.
fn squaredNorm(local: u32, vector: u32) -> f32 {
  var own = 0.0;
  var i = local;
  loop {
    if (i < params.particleCount) {
      own += squareAt(vector, i);
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  return sumAll(local, vec4<f32>(own, 0.0, 0.0, 0.0)).x;
}

// Caribou's test of a Newton loop after `iteration` updates (implicit-ops.ts caribou), from
// ‖R‖², ‖δa‖², ‖Σ δa‖², ‖x₀‖² measured and the loop's step h: 0 go on, 1 converged, 2
// unconverged; ‖R₁‖² is kept in `firstResidual2` at the first update. With Weft's round-off
// floor (program.ts NewtonCriterion): (h² ‖δa‖)² ≤ u² ‖x₀‖².
fn newtonOutcome(iteration: u32, residual2: f32, correction2: f32, total2: f32, start2: f32, h: f32, firstResidual2: ptr<function, f32>) -> u32 {
  var outcome = 0u;
  let ta = settings.absoluteTolerance;
  if (iteration == 0u) {
    if (ta > 0.0 && residual2 <= ta * ta) {
      outcome = 1u;
    }
  } else {
    if (iteration == 1u) {
      *firstResidual2 = residual2;
    }
    let tc = settings.correctionTolerance;
    let tr = settings.residualTolerance;
    if (!(residual2 == residual2) || !(correction2 == correction2) || total2 <= 0.0) {
      outcome = 2u;
    } else if ((tc > 0.0 && correction2 < tc * tc * total2) || (tr > 0.0 && residual2 < tr * tr * *firstResidual2) || (ta > 0.0 && residual2 < ta * ta) || h * h * h * h * correction2 <= F32_UNIT_ROUNDOFF * F32_UNIT_ROUNDOFF * start2) {
      outcome = 1u;
    }
  }
  if (outcome == 0u && iteration >= settings.newtonIterations) {
    outcome = 2u;
  }
  return outcome;
}

// The end of a Newton loop (`outcome` 1 or 2) after `iteration` updates: its statistics (the error
// estimator's iterations, `estimator` 1, counted apart too); 1.0 if it failed.
fn newtonEnded(local: u32, iteration: u32, estimator: u32, outcome: u32) -> f32 {
  if (local == 0u) {
    control.newtonIterations += iteration;
    control.estimatorIterations += select(0u, iteration, estimator == 1u);
    control.failedNewtonLoops += select(0u, 1u, outcome == 2u);
  }
  return select(0.0, 1.0, outcome == 2u);
}
