// Self-collision fail-safe, the end (CPU mirror: selfFailSafe, src/backends/cpu/self-fail-safe.ts),
// one thread per particle: unsettled after every sweep, each free particle stays at x₀ (s = 0; x₀
// had no intersection); then x ← x₀ + s (x − x₀) and v ← s v, counted as truncated (0 < s < 1) or
// undone (s = 0), and the scale set back to 1 for the next step. A shortened particle's new v goes
// to the scheme's velocity history too, where it is restarted (history-restart.wgsl).

@group(0) @binding(6) var<storage, read> particleInvMass: array<f32>;
@group(0) @binding(7) var<storage, read_write> selfScale: array<f32>;
@group(0) @binding(8) var<storage, read_write> selfControl: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read> selfPairs: array<u32>;  // unused here (self-pair-common.wgsl reads it)

@compute @workgroup_size(workgroupSize)
fn selfFailApplyMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= params.particleCount) {
    return;
  }
  let settled = atomicLoad(&selfControl[CONTROL_SETTLED]) == 1u || atomicLoad(&selfControl[CONTROL_CHANGED]) == 0u;
  var s = selfScale[i];
  if (!settled) {
    s = select(0.0, 1.0, particleInvMass[i] == 0.0);
  }
  selfScale[i] = 1.0;
  if (s == 1.0) {
    return;
  }
  atomicAdd(&selfControl[select(CONTROL_TRUNCATED, CONTROL_UNDONE, s == 0.0)], 1u);
  let x0 = loadVector(startRef, i);
  storeVector(xRef, i, x0 + s * (loadVector(xRef, i) - x0));
  let v = s * loadVector(vRef, i);
  storeVector(vRef, i, v);
  restartHistory(i, v);
}
