// A level's node blocks, one thread per node (CPU mirror: CpuMultigrid.assemble), after its edges:
// level 0: S_i = α m_i I (0 for a fixed particle; + P_i in a constrained solve, below); coarse:
// S_I = Σ_i p_iI π_i S_i + Σ_e d_eI δ_e E_e, a weighted gather (src/model/galerkin-terms.ts).
// Then the smoother's M_i⁻¹, 0 for a fixed particle: level 0 M_i = D_i = S_i + Σ_{edges at i} E_e;
// a coarse level adds the negative parts ½ S_i⁻ + Σ_{edges at i} E_e⁻ of its blocks (indefinite
// there), so that λ_max(M⁻¹A) ≤ 2 and the ω-weighted Jacobi sweeps converge
// (CpuMultigrid.invertDiagonal).

override fromParticles: u32 = 0u;  // 1: level 0
override nodeTermList: u32 = 0u;   // in mgGraph: the weighted list of this level's node blocks
override fineNodeBase: u32 = 0u;   // the fine level's first node and edge
override fineEdgeBase: u32 = 0u;

@group(0) @binding(8) var<uniform> solver: SolverParams;
@group(0) @binding(9) var<storage, read> particleMass: array<f32>;  // kg; 0: fixed
// constrained = 1 (a contact-constrained solve): level 0's S_i gains the penalty P_i = c tr(D_i)/3
// n nᵀ on a sliding contact (contactNormals w = 1), c tr(D_i)/3 I on a sticking one (w = 2), c =
// contactPenalty, D_i = S_i + Σ E (MULTIGRID_CYCLE.contactPenalty; CpuMultigrid.addContactPenalty).
override constrained: u32 = 0u;
override contactPenalty: f32 = 0.0;
@group(0) @binding(11) var<storage, read> contactNormals: array<vec4<f32>>;  // n, w = 1: constrained, 2: sticking
// withBending = 1: level 0's D_i also holds bending's diagonal block (bending-diagonal.wgsl; the
// smoother sees the hinges, the Galerkin operators S and E do not: CpuMultigrid.assemble).
override withBending: u32 = 0u;
@group(0) @binding(10) var<storage, read> bendingDiagonal: array<vec4<f32>>;

@compute @workgroup_size(workgroupSize)
fn mgNodesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= nodeCount) {
    return;
  }
  var d = vec3<f32>(0.0);
  var o = vec3<f32>(0.0);
  if (fromParticles == 1u) {
    d = vec3<f32>(solver.massCoefficient * particleMass[i]);
  } else {
    let gathered = gatherTerms(nodeTermList, nodeCount, i, fineNodeBase, fineEdgeBase);
    d = gathered.diagonal;
    o = gathered.offDiagonal;
  }
  let at = 4u * (nodeBase + i);
  if (fromParticles == 1u && d.x == 0.0) {
    mgNodes[at] = vec4<f32>(0.0);
    mgNodes[at + 1u] = vec4<f32>(0.0);
    mgNodes[at + 2u] = vec4<f32>(0.0);
    mgNodes[at + 3u] = vec4<f32>(0.0);
    return;
  }
  // S_i (+ P_i) is stored once D_i is summed: the penalty is scaled by D_i's trace.
  var s = SymmetricBlock(d, o);
  if (fromParticles == 0u) {
    let shift = negativePart(d, o);
    d += 0.5 * shift.diagonal;
    o += 0.5 * shift.offDiagonal;
  }
  let pairs = graphBase + nodeCount + 1u;
  for (var k = mgGraph[graphBase + i]; k < mgGraph[graphBase + i + 1u]; k++) {
    let e = edgeBase + mgGraph[pairs + 2u * k];
    let ed = mgEdges[2u * e].xyz;
    let eo = mgEdges[2u * e + 1u].xyz;
    d += ed;
    o += eo;
    if (fromParticles == 0u) {
      let shift = negativePart(ed, eo);
      d += shift.diagonal;
      o += shift.offDiagonal;
    }
  }
  if (fromParticles == 1u && constrained == 1u && contactNormals[i].w > 0.0) {
    let n = contactNormals[i].xyz;
    let w = contactPenalty * (d.x + d.y + d.z) / 3.0;
    let sticking = contactNormals[i].w > 1.5;
    let penalty = SymmetricBlock(select(w * n * n, vec3<f32>(w), sticking), select(w * vec3<f32>(n.x * n.y, n.x * n.z, n.y * n.z), vec3<f32>(0.0), sticking));
    s = SymmetricBlock(s.diagonal + penalty.diagonal, s.offDiagonal + penalty.offDiagonal);
    d += penalty.diagonal;
    o += penalty.offDiagonal;
  }
  mgNodes[at] = vec4<f32>(s.diagonal, 0.0);
  mgNodes[at + 1u] = vec4<f32>(s.offDiagonal, 0.0);
  if (fromParticles == 1u && withBending == 1u) {
    d += bendingDiagonal[2u * i].xyz;
    o += bendingDiagonal[2u * i + 1u].xyz;
  }
  // Symmetric inverse by cofactors (as system-diagonal.wgsl).
  let cxx = d.y * d.z - o.z * o.z;
  let cxy = o.y * o.z - o.x * d.z;
  let cxz = o.x * o.z - o.y * d.y;
  let determinant = d.x * cxx + o.x * cxy + o.y * cxz;
  mgNodes[at + 2u] = vec4<f32>(cxx, d.x * d.z - o.y * o.y, d.x * d.y - o.x * o.x, 0.0) / determinant;
  mgNodes[at + 3u] = vec4<f32>(cxy, cxz, o.x * o.y - d.x * o.z, 0.0) / determinant;
}

// B⁻ = −Σ_{λ < 0} λ v vᵀ of the symmetric block B (diagonal d, off-diagonal o = xy, xz, yz), as
// addNegativePart in src/backends/cpu/multigrid.ts: the eigenvalues λ₁ ≥ λ₂ ≥ λ₃ by the
// trigonometric solution of the characteristic cubic, then λ₃'s eigenvector when only λ₃ is
// negative (B⁻ = −λ₃ v vᵀ) or λ₁'s when only λ₁ is not (B⁻ = λ₁ v vᵀ − B), the longest cross
// product of two rows of B − λI; where all are 0, the bound −λ₃ I, resp. λ₁ I − B.
fn negativePart(d: vec3<f32>, o: vec3<f32>) -> SymmetricBlock {
  let zero = SymmetricBlock(vec3<f32>(0.0), vec3<f32>(0.0));
  let q = (d.x + d.y + d.z) / 3.0;
  let c = d - vec3<f32>(q);
  let p = sqrt((dot(c, c) + 2.0 * dot(o, o)) / 6.0);
  if (!(p > 0.0)) {
    return SymmetricBlock(vec3<f32>(max(-q, 0.0)), vec3<f32>(0.0));  // B = q I
  }
  // det((B − qI) / p) / 2 = cos 3φ.
  let a = c / p;
  let b = o / p;
  let half = (a.x * (a.y * a.z - b.z * b.z) - b.x * (b.x * a.z - b.z * b.y) + b.y * (b.x * b.z - a.y * b.y)) / 2.0;
  let phi = acos(clamp(half, -1.0, 1.0)) / 3.0;
  let l1 = q + 2.0 * p * cos(phi);
  let l3 = q + 2.0 * p * cos(phi + 2.0943951023931953);
  let l2 = 3.0 * q - l1 - l3;
  if (l3 >= 0.0) {
    return zero;
  }
  let minusB = SymmetricBlock(-d, -o);
  if (l1 <= 0.0) {
    return minusB;
  }
  let lambda = select(l1, l3, l2 >= 0.0);
  let r0 = vec3<f32>(d.x - lambda, o.x, o.y);
  let r1 = vec3<f32>(o.x, d.y - lambda, o.z);
  let r2 = vec3<f32>(o.y, o.z, d.z - lambda);
  var best = cross(r0, r1);
  var longest = dot(best, best);
  let c02 = cross(r0, r2);
  if (dot(c02, c02) > longest) {
    best = c02;
    longest = dot(c02, c02);
  }
  let c12 = cross(r1, r2);
  if (dot(c12, c12) > longest) {
    best = c12;
    longest = dot(c12, c12);
  }
  var outer = SymmetricBlock(vec3<f32>(1.0), vec3<f32>(0.0));  // v vᵀ, or I without a v
  if (longest > 0.0) {
    let v = best / sqrt(longest);
    outer = SymmetricBlock(v * v, vec3<f32>(v.x * v.y, v.x * v.z, v.y * v.z));
  }
  if (l2 >= 0.0) {
    return SymmetricBlock(-l3 * outer.diagonal, -l3 * outer.offDiagonal);
  }
  return SymmetricBlock(l1 * outer.diagonal - d, l1 * outer.offDiagonal - o);
}
