import { describe, expect, test } from 'vitest';
import { kernels, type KernelName, structBytes, scalarConstant, selfKernels } from '../src/internal.ts';

// Pins the byte layouts that the host writes from reflection. If a WGSL struct changes, this
// test says what moved; the host code follows the reflection and needs no edit.
describe('WGSL layouts reflected by wgsl_reflect', () => {
  const layouts = kernels();

  test.each([
    ['SimParams', 32, { particleCount: 0, springCount: 4, gravity: 16, rayleighMass: 28 }],
    ['Spring', 20, { particleA: 0, particleB: 4, restLength: 8, stiffness: 12, damping: 16 }],
  ] as const)('common struct %s: size %d, offsets %o', (name, size, offsets) => {
    for (const kernel of Object.values(layouts)) {
      const struct = kernel.structs.get(name)!;
      expect(struct.size).toBe(size);
      expect(Object.fromEntries([...struct.members].map(([member, { offset }]) => [member, offset]))).toEqual(
        offsets,
      );
    }
  });

  test('kernel-specific uniforms', () => {
    // The vectors an op reads and writes are pipeline overrides; only r_m is a uniform.
    const evaluate = layouts.programGather.structs.get('EvalOp')!;
    expect([...evaluate.members.values()].map((m) => [m.offset, m.type])).toEqual([[0, 'f32']]);
    // Two outputs of up to eight terms: their coefficients, four vec4s.
    const combine = layouts.programCombine.structs.get('CombineOp')!;
    expect([...combine.members.values()].map((m) => m.offset)).toEqual([0, 16, 32, 48]);
  });

  test.each(Object.keys(layouts) as KernelName[])(
    '%s: bindings are unique, per-particle arrays are vec4 with stride 16, within 8 storage buffers',
    (name) => {
      const bindings = [...layouts[name].bindings.values()];
      const numbers = bindings.map((b) => `${b.group}/${b.binding}`);
      expect(new Set(numbers).size).toBe(numbers.length);
      // maxStorageBuffersPerShaderStage is 8 by default on every WebGPU implementation.
      expect(bindings.filter((b) => b.kind === 'storage').length).toBeLessThanOrEqual(8);
      for (const [variable, binding] of layouts[name].bindings) {
        if (binding.typeName === 'vec4<f32>') expect(binding.stride, variable).toBe(16);
        if (binding.typeName === 'Spring') expect(binding.stride, variable).toBe(20);
      }
    },
  );

  test('writeStruct puts each value at its reflected offset', () => {
    const bytes = structBytes(layouts.programForces.structs.get('SimParams')!, {
      particleCount: 7,
      springCount: 9,
      gravity: [1, -2, 3],
      rayleighMass: 0.25,
    });
    expect(bytes.byteLength).toBe(32);
    const u32 = new Uint32Array(bytes);
    const f32 = new Float32Array(bytes);
    expect([u32[0], u32[1]]).toEqual([7, 9]);
    expect([f32[4], f32[5], f32[6], f32[7]]).toEqual([1, -2, 3, 0.25]);
  });

  test('writeStruct refuses a missing or unknown member', () => {
    const layout = layouts.programForces.structs.get('SimParams')!;
    expect(() => structBytes(layout, { particleCount: 1, springCount: 1, gravity: [0, 0, 0] })).toThrow(
      /rayleighMass/,
    );
    expect(() =>
      structBytes(layout, {
        particleCount: 1,
        springCount: 1,
        gravity: [0, 0, 0],
        rayleighMass: 0,
        extra: 1,
      }),
    ).toThrow(/extra/);
  });
});

test('the scalar kernel’s modes are read from its WGSL constants, one distinct number each', () => {
  const constants = kernels().solverScalars.constants;
  // Read from shaders/solver-scalars.wgsl's text here, independently of the reflection's regex.
  const source = kernels().solverScalars.code;
  const names = [...source.matchAll(/^const (\w+): u32 = (\d+)u;/gm)].map((m) => [m[1], Number(m[2])]);
  expect(names.length).toBeGreaterThanOrEqual(16);
  for (const [name, value] of names) expect(constants.get(name as string)).toBe(value);
  // Modes, and the Newton quantities a MEASURE stores (0 = none): distinct within each set.
  const quantityNames = ['RESIDUAL', 'CORRECTION', 'TOTAL', 'START', 'CHANGE'];
  const quantities = names.filter(([name]) => quantityNames.includes(name as string));
  const modes = names.filter(([name]) => !quantityNames.includes(name as string));
  expect(quantities.length).toBe(5);
  expect(new Set(quantities.map(([, value]) => value)).size).toBe(5);
  expect(quantities.every(([, value]) => (value as number) > 0)).toBe(true);
  expect(new Set(modes.map(([, value]) => value)).size).toBe(modes.length);
  expect(scalarConstant('CG_START')).toBe(constants.get('CG_START'));
  expect(scalarConstant('CARIBOU_CHECK')).toBe(constants.get('CARIBOU_CHECK'));
  expect(() => scalarConstant('NO_SUCH_MODE')).toThrow(/NO_SUCH_MODE/);
});

// Self-collision detection (src/backends/webgpu/self-kernels.ts): within the default 8 storage
// buffers (selfNarrow binds the most, 7), the program's vectors at their common bindings, the
// per-particle reach a vec4 array.
test.each([
  ['selfReset', 2],
  ['selfBounds', 6],
  ['selfKeys', 3],
  ['selfScan', 1],
  ['selfScanAdd', 1],
  ['selfScatter', 1],
  ['selfNarrow', 7],
  ['selfIncScatter', 2],
  ['selfIncSort', 1],
] as const)('self-collision kernel %s: %d storage bindings, unique numbers', (name, storage) => {
  const layout = selfKernels()[name];
  const bindings = [...layout.bindings.values()];
  expect(new Set(bindings.map((b) => `${b.group}/${b.binding}`)).size).toBe(bindings.length);
  expect(bindings.filter((b) => b.kind === 'storage').length).toBe(storage);
  const common = { params: 0, positions: 1, velocities: 2, arena: 3, selfDetect: 4, selfTopology: 5, selfGrid: 6, selfPairs: 7, selfParticle: 8 }; // prettier-ignore
  for (const [variable, binding] of layout.bindings) {
    if (variable in common) expect(binding.binding, variable).toBe(common[variable as keyof typeof common]);
    if (binding.typeName === 'vec4<f32>') expect(binding.stride, variable).toBe(16);
  }
});

test('self-collision uniform SelfDetect: 24 words, the same in every kernel that reads it', () => {
  const sizes = Object.values(selfKernels()).map((k) => k.structs.get('SelfDetect')?.size);
  expect(new Set(sizes)).toEqual(new Set([96]));
});
