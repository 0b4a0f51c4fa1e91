// A level's edge blocks, one thread per edge (CPU mirror: CpuMultigrid.assemble). Level 0, one
// edge per spring: E_s = γ J_s + β c_s n nᵀ (the spring states of spring-jacobians.wgsl, α β γ of
// the solve's SolverParams). Coarse: E = Σ of the fine edges listed for it (a gather).

override fromSprings: u32 = 0u;      // 1: level 0
override edgeCount: u32 = 0u;        // edges of this level
override fineEdgeList: u32 = 0u;     // in mgGraph: edgeCount + 1 offsets, then fine edge indices
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
    let list = fineEdgeList + edgeCount + 1u;
    for (var k = mgGraph[fineEdgeList + e]; k < mgGraph[fineEdgeList + e + 1u]; k++) {
      let f = fineEdgeBase + mgGraph[list + k];
      first += mgEdges[2u * f];
      second += mgEdges[2u * f + 1u];
    }
  }
  mgEdges[2u * (edgeBase + e)] = first;
  mgEdges[2u * (edgeBase + e) + 1u] = second;
}
