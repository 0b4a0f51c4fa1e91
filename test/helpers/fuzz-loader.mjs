/**
 * Module hooks of the fuzz worker (test/helpers/fuzz-worker.mjs): TypeScript sources are
 * transpiled (types stripped) with the project's own `typescript`, and Vite's `?raw` imports (the
 * WGSL kernels) load as text, so that the worker runs src/ as vitest does, without a build.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('typescript');
const compilerOptions = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
  verbatimModuleSyntax: true,
};

export async function load(url, context, nextLoad) {
  const [path, query] = url.split('?');
  if (query === 'raw') {
    const text = await readFile(new URL(path), 'utf8');
    return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  }
  if (path.startsWith('file:') && path.endsWith('.ts')) {
    const text = await readFile(new URL(path), 'utf8');
    const { outputText } = ts.transpileModule(text, { compilerOptions, fileName: new URL(path).pathname });
    return { format: 'module', source: outputText, shortCircuit: true };
  }
  return nextLoad(url, context);
}
