#!/usr/bin/env node
// Writes the README's option table from the options table (src/integrators/options-table.ts).
// Usage: npm run docs (builds first; test/options.test.ts fails while the README is stale).
import { readFileSync, writeFileSync } from 'node:fs';
import { optionsMarkdown } from '../dist/weft-internal.js';

const README = new URL('../README.md', import.meta.url);
const START = '<!-- options:start -->';
const END = '<!-- options:end -->';
const text = readFileSync(README, 'utf8');
const [before, rest] = text.split(START);
if (rest === undefined || !rest.includes(END)) throw new Error(`README.md has no ${START} … ${END} block`);
const after = rest.slice(rest.indexOf(END));
writeFileSync(README, `${before}${START}\n${optionsMarkdown()}\n${after}`);
console.log('README.md: option table written');
