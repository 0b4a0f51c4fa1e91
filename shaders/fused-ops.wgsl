// Fused adaptive integration (shaders/fused-adaptive.wgsl): the ops of a program over the
// particles and springs, each thread its own, then a barrier. CPU mirrors: src/backends/cpu/
// passes.ts, executor.ts combine, error-norm.ts, implicit-passes.ts.

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


// `jacobians`: per spring (n, f) and (k g, k (1 − g), c): J_s = k g I + k (1 − g) n nᵀ, g = 1 − L/l
// clamped at 0 unless exact (Choi & Ko 2002).
fn jacobians(local: u32, x: u32, v: u32) {
  for (var s = local; s < params.springCount; s += workgroupSize) {
    let state = springStateAt(springs[s], x, v, settings.exactJacobian == 1u);
    work[2u * params.particleCount + 2u * s] = state.direction;
    work[2u * params.particleCount + 2u * s + 1u] = state.coefficients;
  }
  storageBarrier();
}

// (β c n nᵀ + γ J_s) u for spring s.
fn springApply(s: u32, beta: f32, gamma: f32, u: vec3<f32>) -> vec3<f32> {
  let n = work[2u * params.particleCount + 2u * s].xyz;
  let k = work[2u * params.particleCount + 2u * s + 1u];
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
        let state = work[2u * params.particleCount + 2u * s];
        let f = state.w * state.xyz;
        b += forceScale * select(f, -f, (entry & 1u) == 1u);
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

// (A u)_i = α m_i u_i + Σ_s (β c n nᵀ + γ J_s)(u_i − u_j), u an arena vector; 0 on fixed particles.
fn product(i: u32, vector: u32, system: vec3<f32>) -> vec3<f32> {
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

// P⁻¹ per particle (work slots 0, 1): the inverse of α m I + Σ_s (β c n nᵀ + γ J_s), by cofactors
// (block), or of its diagonal (scalar); 0 on fixed particles.
