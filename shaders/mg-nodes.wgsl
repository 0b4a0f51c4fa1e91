// A level's node blocks, one thread per node (CPU mirror: CpuMultigrid.assemble), after its edges:
// level 0: S_i = α m_i I (0 for a fixed particle); coarse: S_I = Σ_{i ∈ I} (S_i + Σ E_e over i's
// edges to fixed particles). Then D_i⁻¹ = (S_i + Σ_{edges at i} E_e)⁻¹, 0 for a fixed particle.

override fromParticles: u32 = 0u;  // 1: level 0
override childList: u32 = 0u;      // in mgGraph: nodeCount + 1 offsets, then fine node indices
override fineNodeBase: u32 = 0u;   // the fine level's first node, edge and incidence
override fineEdgeBase: u32 = 0u;
override fineGraphBase: u32 = 0u;
override fineNodeCount: u32 = 0u;

@group(0) @binding(8) var<uniform> solver: SolverParams;
@group(0) @binding(9) var<storage, read> particleMass: array<f32>;  // kg; 0: fixed

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
    let fineEntries = fineGraphBase + fineNodeCount + 1u;
    let children = childList + nodeCount + 1u;
    for (var k = mgGraph[childList + i]; k < mgGraph[childList + i + 1u]; k++) {
      let c = mgGraph[children + k];
      d += mgNodes[4u * (fineNodeBase + c)].xyz;
      o += mgNodes[4u * (fineNodeBase + c) + 1u].xyz;
      for (var q = mgGraph[fineGraphBase + c]; q < mgGraph[fineGraphBase + c + 1u]; q++) {
        let j = mgGraph[fineEntries + 2u * q + 1u];
        if (mgNodes[4u * (fineNodeBase + j)].x == 0.0) {
          let e = fineEdgeBase + mgGraph[fineEntries + 2u * q];
          d += mgEdges[2u * e].xyz;
          o += mgEdges[2u * e + 1u].xyz;
        }
      }
    }
  }
  let at = 4u * (nodeBase + i);
  mgNodes[at] = vec4<f32>(d, 0.0);
  mgNodes[at + 1u] = vec4<f32>(o, 0.0);
  if (d.x == 0.0) {
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
  // Symmetric inverse by cofactors (as system-diagonal.wgsl).
  let cxx = d.y * d.z - o.z * o.z;
  let cxy = o.y * o.z - o.x * d.z;
  let cxz = o.x * o.z - o.y * d.y;
  let determinant = d.x * cxx + o.x * cxy + o.y * cxz;
  mgNodes[at + 2u] = vec4<f32>(cxx, d.x * d.z - o.y * o.y, d.x * d.y - o.x * o.x, 0.0) / determinant;
  mgNodes[at + 3u] = vec4<f32>(cxy, cxz, o.x * o.y - d.x * o.z, 0.0) / determinant;
}
