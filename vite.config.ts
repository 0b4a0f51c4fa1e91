/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// `vite build`: the library (dist/weft.js, for browsers and Node).
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
          rollupOptions: { output: { entryFileNames: 'weft.js' } },
        }
      : {
          lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'weft.js' },
          outDir: 'dist',
          emptyOutDir: false,
          target: 'es2022',
          rollupOptions: { external: ['webgpu', /^wgsl_reflect/, /^node:/] },
        },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // GPU tests share one SwiftShader device per file; files run one at a time on 2 cores.
    fileParallelism: false,
  },
}));
