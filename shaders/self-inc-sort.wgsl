// Incidence, last pass (design §2), one thread per particle: its entries 4 · pair + corner, ranked
// by value (rank = #entries smaller; they are distinct), written ascending to incSorted — the fixed
// order of every per-particle sum over pairs.

@group(0) @binding(7) var<storage, read_write> selfPairs: array<u32>;

@compute @workgroup_size(workgroupSize)
fn selfIncSortMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  if (i >= selfDetect.particleCount) {
    return;
  }
  let start = selfPairs[selfDetect.incStart + i];
  let end = selfPairs[selfDetect.incStart + i + 1u];
  for (var s = start; s < end; s++) {
    let entry = selfPairs[selfDetect.slots + s];
    var rank = 0u;
    for (var l = start; l < end; l++) {
      rank += select(0u, 1u, selfPairs[selfDetect.slots + l] < entry);
    }
    selfPairs[selfDetect.incSorted + start + rank] = entry;
  }
}
