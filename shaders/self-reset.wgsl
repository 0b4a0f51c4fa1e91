// Start of a detection (design §2), one thread per entry of max(2T, n): the bucket counts and the
// incidence counts set to 0 (the scatters' atomicSub returns them to 0 anyway; clearing them here
// keeps a detection that ended in an error from leaving counts behind), and, by thread 0, the
// per-step maxima D_max, ρ_max, λ_max. The sticky flags are left for the host to read.

@group(0) @binding(6) var<storage, read_write> selfGrid: array<u32>;
@group(0) @binding(7) var<storage, read_write> selfPairs: array<u32>;

@compute @workgroup_size(workgroupSize)
fn selfResetMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i < 2u * selfDetect.tableSize) {
    selfGrid[selfDetect.gridCount + i] = 0u;
  }
  if (i < selfDetect.particleCount) {
    selfPairs[selfDetect.incCount + i] = 0u;
  }
  if (i == 0u) {
    selfPairs[SCALAR_REACH] = 0u;
    selfPairs[SCALAR_TRIANGLE_RADIUS] = 0u;
    selfPairs[SCALAR_EDGE_RADIUS] = 0u;
  }
}
