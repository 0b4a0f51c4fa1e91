// A Stryker ignorer plugin for scripts/mutate-sample.mjs: when WEFT_MUTATE_SAMPLE names a sample,
// Stryker mutates only the sampled locations (stryker.config.mjs), and this ignorer skips the
// nodes nested inside a sampled location that hold no sampled location themselves (a sampled
// `{ … }` → `{}` would otherwise bring every mutant of the block: 1,039 mutants to run for 300
// sampled). The other mutants of a sampled node, and of a node that holds a sampled one, run but
// are not counted. (Stryker ignores everything under an ignored node, hence the second test.)
import { readFileSync } from 'node:fs';
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const path = process.env['WEFT_MUTATE_SAMPLE'];
/** Sampled locations by file, 0-based lines as the instrumenter's; columns 0-based. */
const byFile = new Map();
for (const { file, location } of path ? JSON.parse(readFileSync(path, 'utf8')).mutants : []) {
  if (!byFile.has(file)) byFile.set(file, []);
  byFile.get(file).push(location);
}

/** Babel's loc (1-based lines) as the instrumenter's (0-based). */
const toZeroBased = ({ start, end }) => ({
  start: { line: start.line - 1, column: start.column },
  end: { line: end.line - 1, column: end.column },
});
const before = (a, b) => a.line < b.line || (a.line === b.line && a.column <= b.column);
const within = (inner, outer) => before(outer.start, inner.start) && before(inner.end, outer.end);

function shouldIgnore(nodePath) {
  const file = nodePath.hub?.file?.opts?.filename ?? '';
  const ranges = [...byFile].find(([name]) => file.endsWith(name))?.[1];
  if (!ranges || !nodePath.node.loc) return undefined;
  const loc = toZeroBased(nodePath.node.loc);
  const insideSampled = ranges.some((r) => within(loc, r) && !within(r, loc));
  const holdsSampled = ranges.some((r) => within(r, loc));
  return insideSampled && !holdsSampled
    ? 'nested in a sampled mutant (scripts/mutate-sample.mjs)'
    : undefined;
}

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'sample', { shouldIgnore })];
