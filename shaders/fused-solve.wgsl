// Fused adaptive integration (shaders/fused-adaptive.wgsl): the linear solve, CG preconditioned
// by the diagonal blocks, and the Newton loop's norms. CPU mirror: src/backends/cpu/
// linear-solver.ts solveLinear, implicit-passes.ts diagonalInverse.

fn diagonalInverse(local: u32, system: vec3<f32>) {
  let n = params.particleCount;
  for (var i = local; i < n; i += workgroupSize) {
    var d = vec3<f32>(system.x * particleMasses[i].x);
    var o = vec3<f32>(0.0);
    for (var e = incidence[i]; e < incidence[i + 1u]; e++) {
      let s = incidence[n + 1u + 2u * e] >> 1u;
      let direction = work[2u * params.particleCount + 2u * s].xyz;
      let k = work[2u * params.particleCount + 2u * s + 1u];
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
    setWork(0u, i, inverseD);
    setWork(1u, i, inverseO);
  }
  storageBarrier();
}

// z = P⁻¹ r (identity when unpreconditioned, 0 on fixed particles), returns this thread's (r·z, r·r).
fn precondition(local: u32) -> vec2<f32> {
  var sums = vec2<f32>(0.0);
  for (var i = local; i < params.particleCount; i += workgroupSize) {
    let r = loadVector(settings.cgResidual, i);
    var z = select(vec3<f32>(0.0), r, particleMasses[i].y > 0.0);
    if (settings.preconditioner != 0u) {
      let d = workVector(0u, i);
      let o = workVector(1u, i);
      z = vec3<f32>(d.x * r.x + o.x * r.y + o.y * r.z, o.x * r.x + d.y * r.y + o.z * r.z, o.y * r.x + o.z * r.y + d.z * r.z);
    }
    storeVector(settings.cgPreconditioned, i, z);
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
      r = bi - product(i, x, system);
    } else {
      storeVector(x, i, vec3<f32>(0.0));
    }
    storeVector(settings.cgResidual, i, r);
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
    storeVector(settings.cgDirection, i, loadVector(settings.cgPreconditioned, i));
  }
  storageBarrier();
  for (var k = 1u; k <= settings.maxIterations; k++) {
    var pq = 0.0;
    for (var i = local; i < params.particleCount; i += workgroupSize) {
      let q = product(i, settings.cgDirection, system);
      storeVector(settings.cgProduct, i, q);
      pq += dot(loadVector(settings.cgDirection, i), q);
    }
    pq = sumAll(local, vec4<f32>(pq, 0.0, 0.0, 0.0)).x;
    if (!(pq > 0.0)) {
      recordSolve(local, k - 1u, sqrt(rr / bb), false);
      return;
    }
    let alpha = rz / pq;
    for (var i = local; i < params.particleCount; i += workgroupSize) {
      storeVector(x, i, loadVector(x, i) + alpha * loadVector(settings.cgDirection, i));
      storeVector(settings.cgResidual, i, loadVector(settings.cgResidual, i) - alpha * loadVector(settings.cgProduct, i));
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
      storeVector(settings.cgDirection, i, loadVector(settings.cgPreconditioned, i) + beta * loadVector(settings.cgDirection, i));
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
