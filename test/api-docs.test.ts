/**
 * The API reference (issue 12): TypeDoc over the public entry (src/index.ts, typedoc.json) builds
 * with no warning, and typedoc.json makes a public function, class, interface, type or constant
 * without TSDoc a warning (`validation.notDocumented`, `treatWarningsAsErrors`), so this test
 * fails when one loses its comment. `npm run docs:api` writes the HTML to docs/api/.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { REPO_ROOT } from './browser/chromium.ts';

test('typedoc: every public symbol documented, no broken link, no warning', () => {
  let output = '';
  try {
    output = execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'typedoc'), ['--emit', 'none'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`typedoc failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
  expect(output).not.toMatch(/\[warning\]|\[error\]/);
}, 120_000);
