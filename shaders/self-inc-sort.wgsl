// Incidence, last pass (design §2), one thread per particle: its entries 4 · pair + corner (distinct)
// written ascending to incSorted — the fixed order of every per-particle sum over pairs. Up to
// SORT_LOCAL entries are sorted by insertion in private memory; more are ranked in place (rank =
// #entries smaller), O(k²) reads of the scatter region.

@group(0) @binding(7) var<storage, read_write> selfPairs: array<u32>;

const SORT_LOCAL: u32 = 128u;

// Insertion sort of the entries [start, end) (end − start ≤ SORT_LOCAL) into incSorted.
fn sortLocal(start: u32, end: u32) {
  var local: array<u32, SORT_LOCAL>;
  let count = end - start;
  for (var k = 0u; k < count; k++) {
    let entry = selfPairs[selfDetect.slots + start + k];
    var at = k;
    while (at > 0u && local[at - 1u] > entry) {
      local[at] = local[at - 1u];
      at--;
    }
    local[at] = entry;
  }
  for (var k = 0u; k < count; k++) {
    selfPairs[selfDetect.incSorted + start + k] = local[k];
  }
}

// Each entry of [start, end) written at start + its rank.
fn sortByRank(start: u32, end: u32) {
  for (var s = start; s < end; s++) {
    let entry = selfPairs[selfDetect.slots + s];
    var rank = 0u;
    for (var l = start; l < end; l++) {
      rank += select(0u, 1u, selfPairs[selfDetect.slots + l] < entry);
    }
    selfPairs[selfDetect.incSorted + start + rank] = entry;
  }
}

@compute @workgroup_size(workgroupSize)
fn selfIncSortMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  if (i >= selfDetect.particleCount) {
    return;
  }
  let start = selfPairs[selfDetect.incStart + i];
  let end = selfPairs[selfDetect.incStart + i + 1u];
  if (end - start <= SORT_LOCAL) {
    sortLocal(start, end);
  } else {
    sortByRank(start, end);
  }
}
