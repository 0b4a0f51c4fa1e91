// The V-cycle's coarse tail in one workgroup (CPU mirror: CpuMultigrid.cycle from the tail's first
// level down): the levels small enough for one workgroup (src/backends/webgpu/multigrid-ops.ts,
// MULTIGRID_TAIL) are smoothed, restricted, solved and prolongated by one dispatch instead of
// nine per level, each phase separated by a storage barrier. The same operations in the same
// order as the per-level kernels: `smoothing` sweeps from x = 0, the residual into the free
// iterate, its restriction; on the coarsest level `sweeps` sweeps; on the way up the correction
// x += θ P x_c, then `smoothing` sweeps. Sweep k on a level reads x (k even) or y and writes the
// other, so an even count of sweeps per level leaves every level's result in its x.
//
// The tail's first level is this pipeline's (overrides nodeBase.., its vectors levelB, levelX,
// levelY; the arena's when it is level 0); the deeper ones are read from a table in mgGraph at
// tailTable, tailStride u32 per level: node base, node count, edge base, incidence base, the
// mgVectors indices of b, x, y, then its coarsening's restriction and prolongation lists and θ.

override tailTable: u32 = 0u;
override tailLevels: u32 = 1u;  // levels in the tail, the coarsest last
override smoothing: u32 = 3u;   // sweeps before and after the coarse correction
override sweeps: u32 = 20u;     // on the coarsest level (even)
override weight: f32 = 0.75;    // ω

override tailStride: u32;       // u32 per level in the table (MULTIGRID_TAIL.stride)

fn tailLevel(t: u32) -> Level {
  if (t == 0u) {
    return thisLevel();
  }
  let at = tailTable + tailStride * t;
  return Level(mgGraph[at], mgGraph[at + 1u], mgGraph[at + 2u], mgGraph[at + 3u], false);
}

// The level's b, x, y.
fn tailVectors(t: u32) -> vec3<u32> {
  if (t == 0u) {
    return vec3<u32>(levelB, levelX, levelY);
  }
  let at = tailTable + tailStride * t + 4u;
  return vec3<u32>(mgGraph[at], mgGraph[at + 1u], mgGraph[at + 2u]);
}

fn tailBarrier() {
  storageBarrier();
  workgroupBarrier();
}

// Sweep k on tail level t, the workgroup's threads striding over its nodes.
fn tailSweep(t: u32, k: u32, local: u32) {
  let level = tailLevel(t);
  let v = tailVectors(t);
  let odd = k % 2u == 1u;
  for (var i = local; i < level.nodeCount; i += workgroupSize) {
    smoothNode(level, v.x, select(v.y, v.z, odd), select(v.z, v.y, odd), k == 0u, weight, i);
  }
}

@compute @workgroup_size(workgroupSize)
fn mgTailMain(@builtin(local_invocation_index) local: u32) {
  let last = tailLevels - 1u;
  // After `smoothing` sweeps the iterate is in x (even) or y; the other holds the residual.
  let smoothedOdd = smoothing % 2u == 1u;
  for (var t = 0u; t < last; t++) {
    for (var k = 0u; k < smoothing; k++) {
      tailSweep(t, k, local);
      tailBarrier();
    }
    let fine = tailLevel(t);
    let v = tailVectors(t);
    let current = select(v.y, v.z, smoothedOdd);
    let free = select(v.z, v.y, smoothedOdd);
    for (var i = local; i < fine.nodeCount; i += workgroupSize) {
      storeOn(fine, free, i, loadOn(fine, v.x, i) - productOn(fine, current, i));
    }
    tailBarrier();
    let coarse = tailLevel(t + 1u);
    let restrictList = mgGraph[tailTable + tailStride * t + 7u];
    let coarseB = tailVectors(t + 1u).x;
    for (var c = local; c < coarse.nodeCount; c += workgroupSize) {
      mgVectors[coarseB + c] = vec4<f32>(restrictAt(fine, restrictList, coarse.nodeCount, free, c), 0.0);
    }
    tailBarrier();
  }
  for (var k = 0u; k < sweeps; k++) {
    tailSweep(last, k, local);
    tailBarrier();
  }
  for (var u = last; u > 0u; u--) {
    let t = u - 1u;
    let fine = tailLevel(t);
    let v = tailVectors(t);
    let current = select(v.y, v.z, smoothedOdd);
    let row = tailTable + tailStride * t;
    let theta = bitcast<f32>(mgGraph[row + 9u]);
    let coarseX = tailVectors(u).y;
    for (var i = local; i < fine.nodeCount; i += workgroupSize) {
      let correction = theta * prolongAt(mgGraph[row + 8u], fine.nodeCount, coarseX, i);
      storeOn(fine, current, i, loadOn(fine, current, i) + correction);
    }
    tailBarrier();
    for (var k = smoothing; k < 2u * smoothing; k++) {
      tailSweep(t, k, local);
      tailBarrier();
    }
  }
}
