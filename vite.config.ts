/// <reference types="vitest/config" />
import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import { HeavyFirstSequencer } from './test/setup/heavy-first.ts';
import { LONG_RUN } from './test/helpers/long-run.ts';

/** Test files run by `npm run test:long`, not `npm test`. */
const LONG_GPU_SCENES = ['test/gpu-bending.test.ts', 'test/gpu-cloth-twist.test.ts'];

/**
 * The Node GPU suites (those that call `useNodeDevice`, test/helpers/node-device-suite.ts). They
 * run without isolation, one process per worker and one device per process (WEFT_SHARED_DEVICE),
 * so SwiftShader compiles each pipeline once per worker instead of once per file (the pipeline
 * cache is per device, src/backends/webgpu/gpu-common.ts).
 */
const SHARED_DEVICE_SUITES = readdirSync('test')
  .filter(
    (name) => name.endsWith('.test.ts') && readFileSync(`test/${name}`, 'utf8').includes('useNodeDevice('),
  )
  .map((name) => `test/${name}`);

/** dist/weft.cjs, where `require('weft-sim')` lands (package.json's `require` condition). */
function esmOnly(): Plugin {
  const message =
    "weft-sim is ESM-only: use import (import { createSimulation } from 'weft-sim') or await import('weft-sim'), not require()";
  return {
    name: 'weft-esm-only',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'weft.cjs',
        source: `'use strict';\n// ${message}\nthrow new Error(${JSON.stringify(message)});\n`,
      });
    },
  };
}

/**
 * The library build's WGSL without comments, indentation and blank lines: the text the `?raw`
 * imports inline into dist/ (and so into every app that bundles Weft) is about half the size.
 * shaders/*.wgsl keep their comments; tests and the CLI compile those as they are.
 */
function compactWgsl(): Plugin {
  return {
    name: 'weft-compact-wgsl',
    enforce: 'post',
    transform(code, id) {
      if (!/\.wgsl\?raw$/.test(id)) return null;
      const match = /^export default (".*");?\s*$/s.exec(code);
      if (!match) this.error(`weft-compact-wgsl: unexpected ?raw module for ${id}`);
      const source = JSON.parse(match![1]!) as string;
      const compact = source
        .split('\n')
        .map((line) => line.replace(/\/\/.*$/, '').trim())
        .filter((line) => line.length > 0)
        .join('\n');
      return { code: `export default ${JSON.stringify(compact)};`, map: null };
    },
  };
}

// `vite build`: the library (dist/weft-browser.js for browsers and bundlers, dist/weft.js for Node
// with Dawn, dist/weft.cjs for require(), dist/weft-internal.js for the benchmarks; package.json's
// `exports` picks one by condition).
// `vite build --mode cli`: the Node CLI (dist/cli/weft.js), WGSL inlined.
// `vite` (npm run demo): the example pages.
export default defineConfig(({ command, mode }) => ({
  plugins: command === 'build' && mode !== 'cli' ? [esmOnly(), compactWgsl()] : [],
  build:
    mode === 'cli'
      ? {
          ssr: 'src/cli/weft.ts',
          outDir: 'dist/cli',
          emptyOutDir: true,
          target: 'node20',
          sourcemap: true,
          rollupOptions: { output: { entryFileNames: 'weft.js' } },
        }
      : {
          // The public API twice, one Node module apart: dist/weft-browser.js names neither Dawn
          // nor node:*, dist/weft.js adds Dawn (src/node.ts); they share their chunks.
          lib: {
            entry: {
              'weft-browser': 'src/index.ts',
              weft: 'src/node.ts',
              'weft-internal': 'src/internal-node.ts',
            },
            formats: ['es'],
            fileName: (_format, name) => `${name}.js`,
          },
          outDir: 'dist',
          // The library builds first (npm run build), so stale chunks of earlier builds go.
          emptyOutDir: true,
          target: 'es2022',
          // Readable stack traces for users: not minified, with source maps.
          minify: false,
          sourcemap: true,
          rollupOptions: {
            external: ['webgpu', /^wgsl_reflect/, /^node:/],
            output: { chunkFileNames: 'weft-[hash].js' },
          },
        },
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Node's WebGPU: what `import 'weft-sim'` in Node gets (src/node.ts registers Dawn).
    setupFiles: ['test/setup/node-entry.ts'],
    // Two files at a time on CI's 2 cores: most of a GPU file's time is one thread (SwiftShader's
    // pipeline compiles, JavaScript, a browser waiting for frames).
    maxWorkers: 2,
    // The GPU suites whose few lines hide long runs start first (test/setup/heavy-first.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared-device',
          include: SHARED_DEVICE_SUITES,
          exclude: LONG_RUN ? [] : LONG_GPU_SCENES,
          isolate: false,
          env: { WEFT_SHARED_DEVICE: '1' },
        },
      },
      {
        extends: true,
        // Long GPU scene runs, in `npm run test:long` only (WEFT_LONG=1): their kernels stay checked
        // against the CPU in `npm test` by gpu-kernels-quick's bending cases and the gpu-self-contact*
        // suites; these add a 180-step ClothTwist and bending strips under every solver (~6 min here).
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: [...SHARED_DEVICE_SUITES, ...(LONG_RUN ? [] : LONG_GPU_SCENES)],
        },
      },
    ],
  },
}));
