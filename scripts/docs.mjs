#!/usr/bin/env node
// Writes the README's option table from the options table (src/integrators/options-table.ts) and
// its feature-support table from the integrators' checks (src/integrators/feature-support.ts).
// Usage: npm run docs (builds first; test/options.test.ts fails while the README is stale).
import { readFileSync, writeFileSync } from 'node:fs';
import { featureSupportMarkdown, optionsMarkdown } from '../dist/weft-internal.js';

const README = new URL('../README.md', import.meta.url);
/** `text` with the block between `<!-- name:start -->` and `<!-- name:end -->` replaced by `body`. */
function replaceBlock(text, name, body) {
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const [before, rest] = text.split(start);
  if (rest === undefined || !rest.includes(end)) throw new Error(`README.md has no ${start} … ${end} block`);
  return `${before}${start}\n${body}\n${rest.slice(rest.indexOf(end))}`;
}

const text = readFileSync(README, 'utf8');
const options = replaceBlock(text, 'options', optionsMarkdown());
writeFileSync(README, replaceBlock(options, 'features', featureSupportMarkdown()));
console.log('README.md: option and feature-support tables written');
