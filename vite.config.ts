/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// `vite build`: the library (dist/weft.js, for browsers and Node; dist/weft-internal.js).
// `vite build --mode cli`: the Node CLI (dist/cli/weft.js), WGSL inlined.
// `vite` (npm run demo): the example pages.
export default defineConfig(({ mode }) => ({
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
          // dist/weft.js: the public API; dist/weft-internal.js: internals for the benchmarks.
          lib: {
            entry: { weft: 'src/index.ts', 'weft-internal': 'src/internal.ts' },
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
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // GPU tests share one SwiftShader device per file; files run one at a time on 2 cores.
    fileParallelism: false,
  },
}));
