// Incidence, counting sort's scatter (design §2), one thread per pair corner k = 4 · pair + corner
// of the min(P, P_max) pairs listed: particle i (not fixed) puts k at incStart[i + 1] −
// atomicSub(&incCount[i], 1) (incCount returns to 0; the first to arrive takes the range's first
// slot) in the scatter region (the narrow phase's slots, no longer needed). Order inside a
// particle's range: the threads' (ascending k where they run in order, which the insertion sort
// of self-inc-sort.wgsl then finds nearly sorted); that pass sorts it.

@group(0) @binding(7) var<storage, read_write> selfPairs: array<atomic<u32>>;

@compute @workgroup_size(workgroupSize)
fn selfIncScatterMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let k = selfThread(id, groups);
  let total = atomicLoad(&selfPairs[selfDetect.pairOffset + selfDetect.particleCount + selfDetect.edgeCount]);
  if (k >= 4u * min(total, selfDetect.pairCapacity)) {
    return;
  }
  let i = atomicLoad(&selfPairs[selfDetect.pairs + k]) & ~KIND_EDGE_EDGE;
  if (selfTopology[selfDetect.fixedBase + i] != 0u) {
    return;
  }
  let slot = atomicLoad(&selfPairs[selfDetect.incStart + i + 1u]) - atomicSub(&selfPairs[selfDetect.incCount + i], 1u);
  atomicStore(&selfPairs[selfDetect.slots + slot], k);
}
