// A level's edge blocks, one thread per edge (CPU mirror: CpuMultigrid.assemble). Level 0, one
// edge per spring: E_s = γ J_s + β c_s n nᵀ (the spring states of spring-jacobians.wgsl, α β γ of
// the solve's SolverParams). Coarse: E_IJ = −Σ_i p_iI p_iJ S_i − Σ_e d_eI d_eJ E_e, a weighted
// gather with the weights of src/model/galerkin-terms.ts.

override fromSprings: u32 = 0u;      // 1: level 0
override edgeCount: u32 = 0u;        // edges of this level
override edgeTermList: u32 = 0u;     // in mgGraph: the weighted list of this level's edge blocks
override fineNodeBase: u32 = 0u;     // the fine level's first node in mgNodes
override fineEdgeBase: u32 = 0u;     // the fine level's first edge in mgEdges

@group(0) @binding(8) var<uniform> solver: SolverParams;
@group(0) @binding(9) var<storage, read> springStates: array<SpringState>;

@compute @workgroup_size(workgroupSize)
fn mgEdgesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let e = threadIndex(id, groups);
  if (e >= edgeCount) {
    return;
  }
  var first = vec4<f32>(0.0);
  var second = vec4<f32>(0.0);
  if (fromSprings == 1u) {
    let blocks = springBlock(springStates[e], solver.dampingCoefficient, solver.stiffnessCoefficient);
    first = vec4<f32>(blocks.diagonal, 0.0);
    second = vec4<f32>(blocks.offDiagonal, 0.0);
  } else {
    let gathered = gatherTerms(edgeTermList, edgeCount, e, fineNodeBase, fineEdgeBase);
    first = vec4<f32>(gathered.diagonal, 0.0);
    second = vec4<f32>(gathered.offDiagonal, 0.0);
  }
  mgEdges[2u * (edgeBase + e)] = first;
  mgEdges[2u * (edgeBase + e) + 1u] = second;
}
