// Fused adaptive integration (shaders/fused-adaptive.wgsl): the ops of a program over the
// particles and springs, each thread its own, then a barrier. CPU mirrors: src/backends/cpu/
// passes.ts, executor.ts combine, error-norm.ts, implicit-passes.ts. Their vectors (arena
// references, program-vectors.wgsl) and coefficients are arguments: the generated blocks pass
// literals, which fold once inlined (fused-blocks.ts); fused-interpreter.wgsl reads them from `code`.

// `eval`: a = M⁻¹ Σ ±f_s + g − r_m v (0 if fixed); spring forces recomputed per incident spring.
fn evaluate(local: u32, x: u32, v: u32, a: u32, rayleighMass: f32) {
  var i = local;
  loop {
    if (i < params.particleCount) {
      evaluateAt(i, x, v, a, rayleighMass);
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  storageBarrier();
}

// `eval` at particle i (reads x and v at its neighbours, writes a at i).
fn evaluateAt(i: u32, x: u32, v: u32, a: u32, rayleighMass: f32) {
  let n = params.particleCount;
  var force = vec3<f32>(0.0);
  let end = incidence[i + 1u];
  var e = incidence[i];
  loop {
    if (e < end) {
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
    continuing {
      e++;
      break if e >= end;
    }
  }
  var acceleration = vec3<f32>(0.0);
  if (particleMasses[i].y > 0.0) {
    acceleration = force * particleMasses[i].y + params.gravity - rayleighMass * loadVector(v, i);
  }
  // Every thread has read what it needs of v before anyone writes a (a may alias nothing it reads
  // but its own particle's v, read above).
  storeVector(a, i, acceleration);
}

// One term of a `combine` output at particle i: coefficient k (a polynomial in h) × vector.
fn combineTerm(vector: u32, k: u32, h: f32, i: u32) -> vec3<f32> {
  return coefficient(k, h) * loadVector(vector, i);
}

// |u_i|² (a `measure`'s term).
fn squareAt(vector: u32, i: u32) -> f32 {
  let u = loadVector(vector, i);
  return dot(u, u);
}

// `norm` (error-norm.ts): (RMS or max of w e / (a + r max(|y|, |ŷ|)) over free particles, finite),
// e = (e_x, e_v) = `error`, y and ŷ = `states` (y_x, y_v, ŷ_x, ŷ_v), `tolerances` (r, a_x, a_v, w_x), w_v.
fn norm(local: u32, error: vec2<u32>, states: vec4<u32>, tolerances: vec4<f32>, weightV: f32) -> vec2<f32> {
  let relative = tolerances.x;
  let absoluteX = tolerances.y;
  let absoluteV = tolerances.z;
  let weightX = tolerances.w;
  var sum = 0.0;
  var largest = 0.0;
  var nonFinite = 0.0;
  var i = local;
  loop {
    if (i < params.particleCount && particleMasses[i].y > 0.0) {
      let scaleX = absoluteX + relative * max(abs(loadVector(states.x, i)), abs(loadVector(states.z, i)));
      let scaleV = absoluteV + relative * max(abs(loadVector(states.y, i)), abs(loadVector(states.w, i)));
      let tx = weightX * loadVector(error.x, i) / scaleX;
      let tv = weightV * loadVector(error.y, i) / scaleV;
      let m = max(max(max(abs(tx.x), abs(tx.y)), abs(tx.z)), max(max(abs(tv.x), abs(tv.y)), abs(tv.z)));
      let s = dot(tx, tx) + dot(tv, tv);
      sum += s;
      largest = max(largest, m);
      nonFinite += select(1.0, 0.0, isFinite(s) && isFinite(m));
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  // Maxima by tree as well: max over the workgroup = the largest partial.
  let total = reduceAll(local, vec4<f32>(sum, largest, nonFinite, 0.0), true);
  if (settings.freeParticles == 0u) {
    return vec2<f32>(0.0, 1.0);
  }
  let value = select(sqrt(total.x / f32(6u * settings.freeParticles)), total.y, settings.maxNorm == 1u);
  return vec2<f32>(value, select(0.0, 1.0, total.z == 0.0));
}


// `jacobians`: per incidence entry e of each particle, its spring's (n, f) and (k g, k (1 − g), c):
// J_s = k g I + k (1 − g) n nᵀ, g = 1 − L/l clamped at 0 unless `exact` is 1 (Choi & Ko 2002). Each
// endpoint keeps its own copy, computed at its own particle: their readers (rhsAt, product,
// diagonalInverseAt) read their own particle's entries only, so no barrier waits between, and the
// generated blocks compute them in the pass of the rhs that reads them (fused-blocks.ts).
fn jacobians(local: u32, x: u32, v: u32, exact: u32) {
  var i = local;
  loop {
    if (i < params.particleCount) {
      jacobiansAt(i, x, v, exact);
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  storageBarrier();
}

// `jacobians` at particle i (reads x and v at its neighbours, writes its entries' states).
fn jacobiansAt(i: u32, x: u32, v: u32, exact: u32) {
  let n = params.particleCount;
  let end = incidence[i + 1u];
  var e = incidence[i];
  loop {
    if (e < end) {
      let state = springStateAt(springs[incidence[n + 1u + 2u * e] >> 1u], x, v, exact == 1u);
      work[2u * n + 2u * e] = state.direction;
      work[2u * n + 2u * e + 1u] = state.coefficients;
    }
    continuing {
      e++;
      break if e >= end;
    }
  }
}

// (β c n nᵀ + γ J_s) u for the spring of incidence entry e.
fn springApply(e: u32, beta: f32, gamma: f32, u: vec3<f32>) -> vec3<f32> {
  let n = work[2u * params.particleCount + 2u * e].xyz;
  let k = work[2u * params.particleCount + 2u * e + 1u];
  return gamma * k.x * u + ((gamma * k.y + beta * k.z) * dot(n, u)) * n;
}

// `rhs`: b_i = s_f f_i + c_w w_i + m_i (c_v v_i + c_a a_i) − (K (γ_v v + γ_a a))_i − (B (β_v v + β_a a))_i,
// `vectors` (b, v, a, w), `scales` (s_f, c_w, c_v, c_a), `terms` (γ_v, γ_a, β_v, β_a): RhsCoefficients.
fn rhs(local: u32, vectors: vec4<u32>, scales: vec4<f32>, terms: vec4<f32>) {
  var i = local;
  loop {
    if (i < params.particleCount) {
      rhsAt(i, vectors, scales, terms);
    }
    continuing {
      i += workgroupSize;
      break if i >= params.particleCount;
    }
  }
  storageBarrier();
}

// `rhs` at particle i (reads v and a at its neighbours, writes b at i). The K and B terms are left
// out where all four of their coefficients are 0 (velocity-implicit Euler's backward Euler): the
// same b wherever v and a are finite, without reading the neighbours' v and a.
fn rhsAt(i: u32, vectors: vec4<u32>, scales: vec4<f32>, terms: vec4<f32>) {
  let to = vectors.x;
  let v = vectors.y;
  let a = vectors.z;
  let w = vectors.w;
  let forceScale = scales.x;
  let extraScale = scales.y;
  let velocityMass = scales.z;
  let accelerationMass = scales.w;
  let velocityStiffness = terms.x;
  let accelerationStiffness = terms.y;
  let velocityDamping = terms.z;
  let accelerationDamping = terms.w;
  let n = params.particleCount;
  let m = particleMasses[i].x;
  var b = vec3<f32>(0.0);
  if (particleMasses[i].y > 0.0) {
    b = forceScale * m * params.gravity;
    let end = incidence[i + 1u];
    var e = incidence[i];
    loop {
      if (e < end) {
        let entry = incidence[n + 1u + 2u * e];
        let other = incidence[n + 2u + 2u * e];
        let state = work[2u * n + 2u * e];
        let f = state.w * state.xyz;
        b += forceScale * select(f, -f, (entry & 1u) == 1u);
        if (any(terms != vec4<f32>(0.0))) {
          let dv = loadVector(v, i) - loadVector(v, other);
          let da = loadVector(a, i) - loadVector(a, other);
          b -= springApply(e, 0.0, 1.0, velocityStiffness * dv + accelerationStiffness * da);
          b -= springApply(e, 1.0, 0.0, velocityDamping * dv + accelerationDamping * da);
        }
      }
      continuing {
        e++;
        break if e >= end;
      }
    }
    b = b + extraScale * loadVector(w, i) + m * (velocityMass * loadVector(v, i) + accelerationMass * loadVector(a, i));
  }
  storeVector(to, i, b);
}

// (A u)_i = α m_i u_i + Σ_s (β c n nᵀ + γ J_s)(u_i − u_j), u an arena vector; 0 on fixed particles.
fn product(i: u32, vector: u32, system: vec3<f32>) -> vec3<f32> {
  let n = params.particleCount;
  if (particleMasses[i].y == 0.0) {
    return vec3<f32>(0.0);
  }
  let u = loadVector(vector, i);
  var y = system.x * particleMasses[i].x * u;
  let end = incidence[i + 1u];
  var e = incidence[i];
  loop {
    if (e < end) {
      y += springApply(e, system.y, system.z, u - loadVector(vector, incidence[n + 2u + 2u * e]));
    }
    continuing {
      e++;
      break if e >= end;
    }
  }
  return y;
}
