// Incidence, last pass (design §2), one thread per particle: its entries 4 · pair + corner (distinct)
// sorted ascending — the fixed order of every per-particle sum over pairs — by insertion in place
// in the scatter region (the particle's range is its thread's alone), then copied to incSorted.
// O(k²) moves at worst; the scatter leaves them nearly sorted where threads run in order.

@group(0) @binding(7) var<storage, read_write> selfPairs: array<u32>;

@compute @workgroup_size(workgroupSize)
fn selfIncSortMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  if (i >= selfDetect.particleCount) {
    return;
  }
  let start = selfDetect.slots + selfPairs[selfDetect.incStart + i];
  let end = selfDetect.slots + selfPairs[selfDetect.incStart + i + 1u];
  for (var s = start + 1u; s < end; s++) {
    let entry = selfPairs[s];
    var at = s;
    while (at > start && selfPairs[at - 1u] > entry) {
      selfPairs[at] = selfPairs[at - 1u];
      at--;
    }
    selfPairs[at] = entry;
  }
  for (var s = start; s < end; s++) {
    selfPairs[selfDetect.incSorted + (s - selfDetect.slots)] = selfPairs[s];
  }
}
