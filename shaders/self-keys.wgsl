// Broad phase, first pass (design §2), one thread per particle and per item:
// - particle i: its reach D_i = 2 h |v_i| + h² |g| + r/2 (the most it may move this step; the
//   fail-safe clamps to it), or the D_i already in selfParticle when `reachFromVelocity` is false
//   (written by another pass, or the host); D_max by atomicMax on its bits;
// - item i (triangle: centroid g = (a + b + c)/3, radius ρ = max corner–centroid distance; edge:
//   midpoint g, half-length λ): its cell, key = 2 H + kind, stored with the cell, and its bucket
//   counted (atomicAdd: an integer count, the same in any order); ρ_max, λ_max by atomicMax; its
//   bounding sphere (g, ρ or λ) at selfParticle[n + i] for the narrow phase's cull.

@group(0) @binding(6) var<storage, read_write> selfGrid: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> selfPairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> selfParticle: array<vec4<f32>>;

override reachFromVelocity: bool = true;

@compute @workgroup_size(workgroupSize)
fn selfKeysMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = selfThread(id, groups);
  let h = selfDetect.h;
  if (i < selfDetect.particleCount) {
    var reach = selfParticle[i].x;
    if (reachFromVelocity) {
      reach = 2.0 * h * length(loadVector(vRef, i)) + (h * h * selfDetect.gravity + 0.5 * selfDetect.thickness);
      selfParticle[i] = vec4<f32>(reach, 0.0, 0.0, 0.0);
    }
    atomicMax(&selfPairs[SCALAR_REACH], bitcast<u32>(reach));
  }
  let t = selfDetect.triangleCount;
  if (i >= t + selfDetect.edgeCount) {
    return;
  }
  var g: vec3<f32>;
  var radius: f32;
  var kind = 0u;
  if (i < t) {
    let c = triangleCorners(i);
    let a = loadVector(xRef, c.x);
    let b = loadVector(xRef, c.y);
    let d = loadVector(xRef, c.z);
    g = (a + b + d) / 3.0;
    radius = max(max(length(a - g), length(b - g)), length(d - g));
    atomicMax(&selfPairs[SCALAR_TRIANGLE_RADIUS], bitcast<u32>(radius));
  } else {
    let ends = edgeEnds(i - t);
    let a = loadVector(xRef, ends.x);
    let b = loadVector(xRef, ends.y);
    g = 0.5 * (a + b);
    radius = 0.5 * length(b - a);
    atomicMax(&selfPairs[SCALAR_EDGE_RADIUS], bitcast<u32>(radius));
    kind = 1u;
  }
  selfParticle[selfDetect.particleCount + i] = vec4<f32>(g, radius);
  let cell = cellOf(g);
  let key = 2u * bucketOf(cell) + kind;
  let at = selfDetect.gridKeys + 4u * i;
  atomicStore(&selfGrid[at], key);
  atomicStore(&selfGrid[at + 1u], bitcast<u32>(cell.x));
  atomicStore(&selfGrid[at + 2u], bitcast<u32>(cell.y));
  atomicStore(&selfGrid[at + 3u], bitcast<u32>(cell.z));
  atomicAdd(&selfGrid[selfDetect.gridCount + key], 1u);
}
