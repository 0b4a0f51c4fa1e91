/**
 * The layers of src/ import only downwards (README, "Design"): core ← model ← integrators ←
 * backends/common (what every backend implements) ← backends/cpu ← backends/webgpu ← simulation ← cli, with index.ts (the public API) on top. A
 * backend may use the CPU reference (below it), never the simulation layer above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { expect, test } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
/** The entry points: the public API (browser, and Node with Dawn) and the internals (same two). */
const ENTRIES = ['index.ts', 'node.ts', 'internal.ts', 'internal-node.ts'];
/** Parts of src/internal.ts (it re-exports them); tests import them through it. */
const INTERNAL_PARTS = ['internal-self-cpu.ts', 'internal-self-gpu.ts', 'internal-self-dynamics.ts'];
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
  return index >= 0 ? index : LAYERS.length; // index.ts, node.ts, internal.ts, internal-node.ts: the top
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
    .filter((path) => !ENTRIES.includes(path) && !INTERNAL_PARTS.includes(path));
  expect(loose).toEqual([]);
});

test('tests reach Weft only through its entries: src/index.ts (public), src/node.ts and src/internal.ts', () => {
  const TEST = import.meta.dirname;
  const elsewhere: string[] = [];
  for (const file of sources(TEST)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from\s+'(\.{1,2}\/[^'?]+)'/g)) {
      const target = normalize(join(dirname(file), match[1]!));
      if (!target.startsWith(SRC)) continue;
      const entry = relative(SRC, target);
      if (!ENTRIES.includes(entry)) elsewhere.push(`${relative(TEST, file)} imports src/${entry}`);
    }
  }
  expect(elsewhere).toEqual([]);
});

test('the browser entry (src/index.ts) reaches no Node module and no Dawn; the Node entry reaches both', () => {
  const reached = (entry: string): { modules: Set<string>; outside: Set<string> } => {
    const modules = new Set<string>();
    const outside = new Set<string>();
    const visit = (file: string): void => {
      if (modules.has(file)) return;
      modules.add(file);
      const text = readFileSync(file, 'utf8');
      // Static imports and exports, side-effect imports and dynamic imports of a literal or a
      // name held in a variable (`const name = 'webgpu'`: the literal is what a bundler may see).
      for (const match of text.matchAll(
        /(?:from|import)\s*\(?\s*'([^'?]+)'|const \w+ = '((?:node:|webgpu)[^']*)'/g,
      )) {
        const target = match[1] ?? match[2]!;
        if (target.startsWith('.')) {
          const path = normalize(join(dirname(file), target));
          if (path.startsWith(SRC) && path.endsWith('.ts')) visit(path);
        } else outside.add(target);
      }
    };
    visit(join(SRC, entry));
    return { modules, outside };
  };
  const browser = reached('index.ts');
  expect([...browser.outside].filter((name) => name.startsWith('node:') || name === 'webgpu')).toEqual([]);
  const node = reached('node.ts');
  expect(node.outside).toContain('webgpu');
  expect(node.outside).toContain('node:fs');
});
