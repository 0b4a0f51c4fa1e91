// Bending, the per-hinge pass at (x, v) (CPU mirror: CpuBending.states, src/backends/cpu/bending.ts):
// with e = x₁ − x₀, n₁ = e × (x₂ − x₀), n₂ = (x₃ − x₀) × e (Bridson, Marino & Fedkiw 2003 §4.1),
//   θ = atan2((n₁ × n₂)·ê, n₁·n₂),  ∇₂θ = −‖e‖ n₁/‖n₁‖²,  ∇₃θ = −‖e‖ n₂/‖n₂‖²,
//   ∇₀θ = −(1 − s₂) ∇₂θ − (1 − s₃) ∇₃θ,  ∇₁θ = −s₂ ∇₂θ − s₃ ∇₃θ,  s_k = (x_k − x₀)·e/‖e‖²,
//   F = −(2 k c wrap(θ − θ₀) + d c Σ_j ∇_jθ·v_j)   (wrap into [−π, π); 0 for a degenerate hinge).
// Writes ∇θ and F (the implicit solvers' hinge states), and with writeTerms = 1 the terms F ∇_jθ
// that bending-gather.wgsl sums into the accelerations (an `eval`).

override writeTerms: u32 = 0u;

@group(0) @binding(4) var<storage, read> hinges: array<Hinge>;  // the hinges and their material
// Per hinge and corner: xyz ∇_jθ, 1/m; w of corner 0: F, J.
@group(0) @binding(5) var<storage, read_write> hingeStates: array<vec4<f32>>;
// Per hinge and corner: xyz σ ∇_jθ, N (here σ = F).
@group(0) @binding(6) var<storage, read_write> hingeTerms: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn bendingHingesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  for (var h = threadIndex(id, groups); h < hingeCount; h += hingeStride(groups)) {
    hingeAt(h);
  }
}

fn hingeAt(h: u32) {
  let hinge = hinges[h];
  let p = hinge.particles;
  let x0 = loadVector(xRef, p.x);
  let e = loadVector(xRef, p.y) - x0;
  let x2 = loadVector(xRef, p.z) - x0;
  let x3 = loadVector(xRef, p.w) - x0;
  let n1 = cross(e, x2);
  let n2 = cross(x3, e);
  let ee = dot(e, e);
  let nn1 = dot(n1, n1);
  let nn2 = dot(n2, n2);
  var g = array<vec3<f32>, 4>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  var force = 0.0;
  if (ee > 0.0 && nn1 > 0.0 && nn2 > 0.0) {
    let len = sqrt(ee);
    let y = dot(cross(n1, n2), e) / len;
    let x = dot(n1, n2);
    // SwiftShader's atan2(−0, x > 0) is π, not −0 (measured): a flat hinge would read as folded.
    let theta = select(atan2(y, x), atan(y / x), x > 0.0);
    let s2 = dot(x2, e) / ee;
    let s3 = dot(x3, e) / ee;
    g[2] = (-len / nn1) * n1;
    g[3] = (-len / nn2) * n2;
    g[0] = -(1.0 - s2) * g[2] - (1.0 - s3) * g[3];
    g[1] = -s2 * g[2] - s3 * g[3];
    let rate = dot(g[0], loadVector(vRef, p.x)) + dot(g[1], loadVector(vRef, p.y)) + dot(g[2], loadVector(vRef, p.z)) + dot(g[3], loadVector(vRef, p.w));
    let d = theta - hinge.restAngle;
    let wrapped = d - 6.283185307179586 * floor((d + 3.141592653589793) / 6.283185307179586);
    force = -(hinge.stiffness * wrapped + hinge.damping * rate);
  }
  for (var c = 0u; c < 4u; c++) {
    hingeStates[4u * h + c] = vec4<f32>(g[c], select(0.0, force, c == 0u));
    if (writeTerms == 1u) {
      hingeTerms[4u * h + c] = vec4<f32>(force * g[c], 0.0);
    }
  }
}
