// One level of an exclusive prefix sum of u32s (design §2; the structure of kishimisu/WebGPU-Radix-Sort
// src/shaders/prefix_sum.js): each workgroup scans 4 · workgroupSize entries, each thread four
// in sequence and the workgroup's thread totals by a Hillis–Steele scan in workgroup memory, and
// writes its chunk's total to the next level's input (the block sums, scanned the same way in
// place, then added back by self-scan-add.wgsl). Integer sums: the result does not depend on the
// threads' order. Entries at or past inputCount read as 0, so a level-0 scan with outputCount =
// inputCount + 1 also writes the total.

struct ScanLevel {
  inputOffset: u32,   // u32 words into scanData
  outputOffset: u32,  // may equal inputOffset (each thread reads its entries before writing them)
  inputCount: u32,
  outputCount: u32,   // ≥ inputCount
  blockOffset: u32,   // chunk totals, one per workgroup
  writeBlocks: u32,   // 1 when the level has more than one workgroup
}

@group(0) @binding(9) var<uniform> scanLevel: ScanLevel;
@group(0) @binding(10) var<storage, read_write> scanData: array<u32>;

var<workgroup> scanSums: array<u32, workgroupSize>;

@compute @workgroup_size(workgroupSize)
fn selfScanMain(
  @builtin(global_invocation_id) id: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
) {
  let thread = threadIndex(id, groups);
  var v = vec4<u32>(0u);
  for (var k = 0u; k < 4u; k++) {
    if (4u * thread + k < scanLevel.inputCount) {
      v[k] = scanData[scanLevel.inputOffset + 4u * thread + k];
    }
  }
  let total = v.x + v.y + v.z + v.w;
  scanSums[local] = total;
  workgroupBarrier();
  // Inclusive: after the step of `offset`, scanSums[i] = Σ of the 2·offset totals ending at i.
  for (var offset = 1u; offset < workgroupSize; offset = 2u * offset) {
    var add = 0u;
    if (local >= offset) {
      add = scanSums[local - offset];
    }
    workgroupBarrier();
    scanSums[local] += add;
    workgroupBarrier();
  }
  let before = scanSums[local] - total;
  let prefix = vec4<u32>(before, before + v.x, before + v.x + v.y, before + v.x + v.y + v.z);
  for (var k = 0u; k < 4u; k++) {
    if (4u * thread + k < scanLevel.outputCount) {
      scanData[scanLevel.outputOffset + 4u * thread + k] = prefix[k];
    }
  }
  // The chunk's total, unless the chunk lies past the entries (a 2-D grid's spare workgroups).
  if (local == workgroupSize - 1u && scanLevel.writeBlocks == 1u && 4u * (thread + 1u - workgroupSize) < scanLevel.outputCount) {
    scanData[scanLevel.blockOffset + thread / workgroupSize] = scanSums[local];
  }
}
