/**
 * Every TypeScript/JavaScript snippet in README.md runs as pasted (issue 12: snippets that cannot
 * rot): each ```ts / ```js block is written to a module in a temporary folder whose
 * node_modules/weft-sim is this repository (the built package, Node entry: WebGPU through Dawn),
 * with examples/ beside it, and run by Node; it must exit 0. A block preceded by
 * `<!-- not-run: reason -->` is an excerpt, skipped with its reason (at most one).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from './browser/chromium.ts';

interface Snippet {
  readonly line: number;
  readonly code: string;
  readonly notRun?: string;
}

function snippets(markdown: string): Snippet[] {
  const found: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|js)$/.test(lines[i]!)) continue;
    const end = lines.indexOf('```', i + 1);
    const before = lines.slice(Math.max(0, i - 2), i).join('\n');
    const notRun = /<!-- not-run: (.+?) -->/.exec(before)?.[1];
    found.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), ...(notRun ? { notRun } : {}) });
    i = end;
  }
  return found;
}

const all = snippets(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const folder = mkdtempSync(join(tmpdir(), 'weft-readme-'));
mkdirSync(join(folder, 'node_modules'));
symlinkSync(REPO_ROOT, join(folder, 'node_modules', 'weft-sim'));
symlinkSync(join(REPO_ROOT, 'examples'), join(folder, 'examples'));
writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('README.md snippets', () => {
  test('there are runnable snippets, and at most one excerpt, with a reason', () => {
    expect(all.filter((s) => !s.notRun).length).toBeGreaterThanOrEqual(2);
    expect(all.filter((s) => s.notRun).length).toBeLessThanOrEqual(1);
  });

  test.each(all.filter((s) => !s.notRun).map((s) => [s.line, s] as const))(
    'the snippet at README.md:%i runs as pasted',
    (line, snippet) => {
      const file = join(folder, `snippet-${line}.mjs`);
      writeFileSync(file, snippet.code);
      try {
        execFileSync(process.execPath, [file], { cwd: folder, encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        const failed = error as { stderr?: string };
        throw new Error(`README.md:${line} failed:\n${failed.stderr ?? String(error)}`);
      }
    },
    120_000,
  );
});
