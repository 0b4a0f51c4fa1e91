/**
 * The layers of src/ import only downwards (README, "Design"): core ← model ← integrators ←
 * backends/common (what every backend implements) ← backends/cpu ← backends/webgpu ← simulation ← cli, with index.ts (the public API) on top. A
 * backend may use the CPU reference (below it), never the simulation layer above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { expect, test } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const LAYERS = [
  'types',
  'core',
  'model',
  'integrators',
  'backends/common',
  'backends/cpu',
  'backends/webgpu',
  'simulation',
  'cli',
] as const;

function layerOf(file: string): number {
  const path = relative(SRC, file).split('\\').join('/');
  const index = LAYERS.findIndex((layer) => path.startsWith(`${layer}/`));
  return index >= 0 ? index : LAYERS.length; // index.ts, internal.ts: the top
}

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(directory, entry.name)]
        : [],
  );
}

test('no module of src/ imports from a layer above its own', () => {
  const upward: string[] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^'?]+)/g)) {
      const target = normalize(join(dirname(file), match[1]!));
      if (!target.startsWith(SRC)) continue; // shaders/
      if (layerOf(target) > layerOf(file))
        upward.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  expect(upward).toEqual([]);
});

test('every source file lies in a layer (or is an entry point)', () => {
  const loose = sources(SRC)
    .map((file) => relative(SRC, file))
    .filter((path) => layerOf(join(SRC, path)) === LAYERS.length)
    .filter((path) => path !== 'index.ts' && path !== 'internal.ts');
  expect(loose).toEqual([]);
});

test('tests reach Weft only through its entries: src/index.ts (public) and src/internal.ts', () => {
  const TEST = import.meta.dirname;
  const elsewhere: string[] = [];
  for (const file of sources(TEST)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from\s+'(\.{1,2}\/[^'?]+)'/g)) {
      const target = normalize(join(dirname(file), match[1]!));
      if (!target.startsWith(SRC)) continue;
      const entry = relative(SRC, target);
      if (entry !== 'index.ts' && entry !== 'internal.ts')
        elsewhere.push(`${relative(TEST, file)} imports src/${entry}`);
    }
  }
  expect(elsewhere).toEqual([]);
});
