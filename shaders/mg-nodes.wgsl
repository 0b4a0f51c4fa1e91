// A level's node blocks, one thread per node (CPU mirror: CpuMultigrid.assemble), after its edges:
// level 0: S_i = α m_i I (0 for a fixed particle); coarse: S_I = Σ_i p_iI π_i S_i + Σ_e d_eI δ_e E_e,
// a weighted gather (src/model/galerkin-terms.ts). Then D_i⁻¹ = (S_i + Σ_{edges at i} E_e)⁻¹, 0 for
// a fixed particle.

override fromParticles: u32 = 0u;  // 1: level 0
override nodeTermList: u32 = 0u;   // in mgGraph: the weighted list of this level's node blocks
override fineNodeBase: u32 = 0u;   // the fine level's first node and edge
override fineEdgeBase: u32 = 0u;

@group(0) @binding(8) var<uniform> solver: SolverParams;
@group(0) @binding(9) var<storage, read> particleMass: array<f32>;  // kg; 0: fixed
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
  mgNodes[at] = vec4<f32>(d, 0.0);
  mgNodes[at + 1u] = vec4<f32>(o, 0.0);
  if (fromParticles == 1u && d.x == 0.0) {
    mgNodes[at + 2u] = vec4<f32>(0.0);
    mgNodes[at + 3u] = vec4<f32>(0.0);
    return;
  }
  let pairs = graphBase + nodeCount + 1u;
  for (var k = mgGraph[graphBase + i]; k < mgGraph[graphBase + i + 1u]; k++) {
    let e = edgeBase + mgGraph[pairs + 2u * k];
    d += mgEdges[2u * e].xyz;
    o += mgEdges[2u * e + 1u].xyz;
  }
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
