// The coarsest level's solve in one workgroup (CPU mirror: CpuMultigrid.smooth on the last
// level): `sweeps` weighted block-Jacobi sweeps from x = 0, alternating between the level's x and
// y (an even count ends in x), each sweep separated by a storage barrier. One dispatch instead of
// one per sweep; the host gates it to a single workgroup.

override sweeps: u32 = 20u;
override weight: f32 = 0.75;  // ω

@compute @workgroup_size(workgroupSize)
fn mgCoarseSolveMain(@builtin(local_invocation_index) local: u32) {
  for (var s = 0u; s < sweeps; s++) {
    let odd = s % 2u == 1u;
    let readFrom = select(levelX, levelY, odd);
    let writeTo = select(levelY, levelX, odd);
    for (var i = local; i < nodeCount; i += workgroupSize) {
      var x = vec3<f32>(0.0);
      var r = levelLoad(levelB, i);
      if (s > 0u) {
        x = levelLoad(readFrom, i);
        r -= levelProduct(readFrom, i);
      }
      let at = 4u * (nodeBase + i);
      levelStore(writeTo, i, x + weight * blockProduct(mgNodes[at + 2u], mgNodes[at + 3u], r));
    }
    storageBarrier();
    workgroupBarrier();
  }
}
