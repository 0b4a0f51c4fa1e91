// Broad phase, counting sort's scatter (design §2), one thread per item: its slot in its bucket's
// range, start[key] + atomicSub(&count[key], 1) − 1 (count returns to 0), gets (item, cell). The
// order inside a bucket depends on the threads' order; nothing downstream does (the narrow phase
// counts, and sorts what it lists).

@group(0) @binding(6) var<storage, read_write> selfGrid: array<atomic<u32>>;

@compute @workgroup_size(workgroupSize)
fn selfScatterMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  if (i >= selfDetect.triangleCount + selfDetect.edgeCount) {
    return;
  }
  let keyAt = selfDetect.gridKeys + 4u * i;
  let key = atomicLoad(&selfGrid[keyAt]);
  let slot = atomicLoad(&selfGrid[selfDetect.gridStart + key]) + atomicSub(&selfGrid[selfDetect.gridCount + key], 1u) - 1u;
  let itemAt = selfDetect.gridItems + 4u * slot;
  atomicStore(&selfGrid[itemAt], i);
  atomicStore(&selfGrid[itemAt + 1u], atomicLoad(&selfGrid[keyAt + 1u]));
  atomicStore(&selfGrid[itemAt + 2u], atomicLoad(&selfGrid[keyAt + 2u]));
  atomicStore(&selfGrid[itemAt + 3u], atomicLoad(&selfGrid[keyAt + 3u]));
}
