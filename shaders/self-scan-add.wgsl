// The second half of a scan level (self-scan.wgsl): each output entry gets the exclusive prefix of
// the chunk totals before its chunk, out[i] += blocks[i / (4 · workgroupSize)].

struct ScanLevel {
  inputOffset: u32,
  outputOffset: u32,
  inputCount: u32,
  outputCount: u32,
  blockOffset: u32,
  writeBlocks: u32,
}

@group(0) @binding(9) var<uniform> scanLevel: ScanLevel;
@group(0) @binding(10) var<storage, read_write> scanData: array<u32>;

@compute @workgroup_size(workgroupSize)
fn selfScanAddMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = threadIndex(id, groups);
  if (i >= scanLevel.outputCount) {
    return;
  }
  scanData[scanLevel.outputOffset + i] += scanData[scanLevel.blockOffset + i / (4u * workgroupSize)];
}
