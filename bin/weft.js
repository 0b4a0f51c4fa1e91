#!/usr/bin/env node
// The `weft` command: runs the CLI built by `npm run build` (dist/cli/weft.js).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/weft.js', import.meta.url);
if (!existsSync(cli)) {
  console.error(
    'weft: the CLI is not built yet; run `npm run build` (or `npm start`) in the Weft folder first',
  );
  process.exit(1);
}
await import(cli.href);
