/// <reference types="vitest/config" />
// The WGSL mutator's runner (scripts/mutate-wgsl.mjs): one vitest process tests a batch of shader
// mutants on one Dawn device (test/wgsl-mutants.run.ts). A mutant never touches shaders/ on disk:
// the plugin below makes every `shaders/*.wgsl?raw` import read globalThis.__weftWgslOverride
// (set by the runner per mutant, then vi.resetModules()) and fall back to the file's text, so
// other work in the tree is safe and Dawn's per-device cache recompiles only the mutated kernel.
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';

function wgslOverride(): Plugin {
  return {
    name: 'weft-wgsl-override',
    enforce: 'pre',
    load(id) {
      const match = /[/\\]shaders[/\\]([\w.-]+\.wgsl)\?raw$/.exec(id);
      if (!match) return null;
      const file = match[1] ?? '';
      const text = readFileSync(id.slice(0, -'?raw'.length), 'utf8');
      return [
        `const o = globalThis.__weftWgslOverride;`,
        `export default o && o.file === ${JSON.stringify(file)} ? o.source : ${JSON.stringify(text)};`,
      ].join('\n');
    },
  };
}

export default defineConfig({
  plugins: [wgslOverride()],
  test: {
    include: ['test/wgsl-mutants.run.ts'],
    setupFiles: ['test/setup/node-entry.ts'],
    testTimeout: 24 * 3600_000,
    hookTimeout: 180_000,
  },
});
