// Self-collision fail-safe, each free particle's truncation in a sweep (CPU mirror: truncation and
// sweepOnce, src/backends/cpu/self-fail-safe.ts), one thread per particle: over its pairs (the
// detection's incidence) the sweep's move m = s (x − x₀) toward each pair's plane (self-fail-planes.wgsl)
//   τ = max(room, 0) / approach,   t = min(t, max(0, min(0.85 τ, τ − 10⁻³))) where 0.85 τ < 1 − SETTLE,
// t = 0 when it approaches a frozen pair's plane. t < 1: s ← s t (`phase` 1) or s ← 0 (`phase` 2),
// and the sweep is not settled (CONTROL_CHANGED).

override phase: u32 = 1u;

const RELAXATION: f32 = 0.85;
// A move is shortened only where 0.85 τ < 1 − SETTLE (CPU SETTLE): one shortened to 0.85 τ finds
// 0.85 τ' = 1 ± a few ulps in the next sweep, and was shortened again by an ulp, forcing another
// sweep; let be, its corner stops at 0.85 / (1 − SETTLE) of the way to the plane.
const SETTLE: f32 = 1e-5;

@group(0) @binding(6) var<storage, read> selfPairs: array<u32>;
@group(0) @binding(7) var<storage, read> particleInvMass: array<f32>;
@group(0) @binding(8) var<storage, read> pairTerms: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> selfScale: array<f32>;
@group(0) @binding(10) var<storage, read_write> selfControl: array<atomic<u32>>;

@compute @workgroup_size(workgroupSize)
fn selfFailTruncateMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount || particleInvMass[i] == 0.0 || selfScale[i] == 0.0) {
    return;
  }
  let x0 = loadVector(startRef, i);
  let moved = selfScale[i] * (loadVector(xRef, i) - x0);
  var t = 1.0;
  for (var k = selfPairs[incidenceAt + i]; k < selfPairs[incidenceAt + i + 1u]; k++) {
    let entry = selfPairs[entriesAt + k];
    let e = entry >> 2u;
    let sign = select(-1.0, 1.0, (entry & 3u) < firstSide(e));
    let plane = pairTerms[4u * e];
    let room = sign * (dot(plane.xyz, x0) - plane.w);
    let approach = -sign * dot(plane.xyz, moved);
    if (approach <= 0.0) {
      continue;
    }
    if (pairTerms[4u * e + 1u].x != 0.0) {
      t = 0.0;
      break;
    }
    let tau = max(room, 0.0) / approach;
    if (RELAXATION * tau < 1.0 - SETTLE) {
      t = min(t, max(0.0, min(RELAXATION * tau, tau - 1e-3)));
    }
  }
  if (t < 1.0) {
    selfScale[i] = select(0.0, selfScale[i] * t, phase == 1u);
    atomicStore(&selfControl[CONTROL_CHANGED], 1u);
  }
}
