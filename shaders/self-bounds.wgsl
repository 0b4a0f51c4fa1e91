// Broad phase, first pass (design §2), one thread per particle and per item: the step's reach and
// extents, before any cell is computed (self-keys.wgsl sizes the cells from their maxima):
// - particle i: its reach D_i = 2 h |v_i| + h² |g| + r/2 (the most it may move this step; the
//   fail-safe clamps to it), or the D_i already in selfParticle when `reachFromVelocity` is false
//   (self-pair-reach.wgsl, or the host); D_max by atomicMax on its bits;
// - item i (triangle: centroid g = (a + b + c)/3, radius ρ = max corner–centroid distance; edge:
//   midpoint g, half-length λ): ρ_max, λ_max by atomicMax, and its bounding sphere (g, ρ or λ) at
//   selfParticle[n + i] for the keys and the narrow phase's cull.
// The bits of non-negative f32s order as their values, so each maximum is exact in any order.

@group(0) @binding(7) var<storage, read_write> selfPairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> selfParticle: array<vec4<f32>>;

override reachFromVelocity: bool = true;

@compute @workgroup_size(workgroupSize)
fn selfBoundsMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
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
  }
  selfParticle[selfDetect.particleCount + i] = vec4<f32>(g, radius);
}
