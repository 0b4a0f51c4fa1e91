// Broad phase, second pass (design §2), one thread per item, after self-bounds.wgsl: the step's
// cell size c_s (selfDetect.cellSize when the host fixes one, else 2 (r + D_max + max(ρ_max,
// λ_max)) from this step's maxima, as the CPU's detectSelfPairs: every query box's half-width is
// then below c_s, so it spans at most 3 cells per axis (4 with its rounding slack) of the 8 allowed,
// whatever the particles' speeds), stored by thread 0 at SCALAR_CELL_SIZE
// for the narrow phase; the item's cell ⌊g / c_s⌋, key = 2 H + kind, stored with the cell, and
// its bucket counted (atomicAdd: an integer count, the same in any order).

@group(0) @binding(6) var<storage, read_write> selfGrid: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> selfPairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> selfParticle: array<vec4<f32>>;

fn maximumOf(word: u32) -> f32 {
  return bitcast<f32>(atomicLoad(&selfPairs[word]));
}

@compute @workgroup_size(workgroupSize)
fn selfKeysMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  let t = selfDetect.triangleCount;
  if (i >= t + selfDetect.edgeCount) {
    return;
  }
  var size = selfDetect.cellSize;
  if (!(size > 0.0)) {
    let extent = max(maximumOf(SCALAR_TRIANGLE_RADIUS), maximumOf(SCALAR_EDGE_RADIUS));
    size = 2.0 * (selfDetect.thickness + maximumOf(SCALAR_REACH) + extent);
  }
  if (i == 0u) {
    atomicStore(&selfPairs[SCALAR_CELL_SIZE], bitcast<u32>(size));
  }
  let cell = cellOf(selfParticle[selfDetect.particleCount + i].xyz, size);
  let key = 2u * bucketOf(cell) + select(0u, 1u, i >= t);
  let at = selfDetect.gridKeys + 4u * i;
  atomicStore(&selfGrid[at], key);
  atomicStore(&selfGrid[at + 1u], bitcast<u32>(cell.x));
  atomicStore(&selfGrid[at + 2u], bitcast<u32>(cell.y));
  atomicStore(&selfGrid[at + 3u], bitcast<u32>(cell.z));
  atomicAdd(&selfGrid[selfDetect.gridCount + key], 1u);
}
