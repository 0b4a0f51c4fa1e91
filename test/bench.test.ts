/**
 * Smoke test of `npm run bench` (bench/run.mjs) on a tiny cloth: it runs as a user would, against
 * the built bundle (`npm test` builds first), into a temporary directory, and its CSV and SVG are
 * checked for shape: the expected columns, numbers where numbers belong, one line per series.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const BENCH = join(ROOT, 'bench', 'run.mjs');

const COLUMNS = [
  'engine',
  'scene',
  'family',
  'integrator',
  'solver',
  'backend',
  'precision',
  'device',
  'N',
  'particles',
  'springs',
  'dt_s',
  'steps_per_frame',
  'status',
  'samples',
  'timed_steps',
  'ms_per_step',
  'ms_per_step_min',
  'steps_per_s',
  'sim_s_per_wall_s',
  'setup_ms',
  'warm_up_ms',
  'cg_iterations_per_solve',
  'cg_iterations_max',
  'cg_residual_last',
  'sim_time_s',
  'quality_time_s',
  'sag_m',
  'max_strain',
  'bandwidth_basis',
  'bytes_per_step',
  'achieved_GBps',
  'copy_GBps',
  'copy_GBps_local',
  'bandwidth_fraction',
  'note',
];
const TEXT = new Set([
  'engine',
  'scene',
  'family',
  'integrator',
  'solver',
  'backend',
  'precision',
  'device',
  'status',
  'bandwidth_basis',
  'note',
]);

/** RFC 4180: quoted fields may hold commas, doubled quotes and newlines. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  expect(quoted, 'an unterminated quoted field').toBe(false);
  if (field !== '' || record.length) records.push([...record, field]);
  return records;
}

/**
 * Well-formedness at the level SVG needs: every '<' opens a comment, a declaration or a tag with
 * quoted attributes; tags nest and close in order; text holds no bare '<' or stray '&'. Returns
 * the elements' names and attributes, in document order.
 */
function parseXml(text: string): { name: string; attributes: Record<string, string> }[] {
  const elements: { name: string; attributes: Record<string, string> }[] = [];
  const stack: string[] = [];
  let roots = 0;
  const tag = /^<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/;
  const checkText = (chunk: string) => {
    expect(chunk.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, ''), 'text').not.toMatch(/[<&]/);
  };
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('<', i);
    if (open < 0) {
      checkText(text.slice(i));
      break;
    }
    checkText(text.slice(i, open));
    const rest = text.slice(open);
    if (rest.startsWith('<!--') || rest.startsWith('<?')) {
      const end = text.indexOf(rest.startsWith('<!--') ? '-->' : '?>', open);
      expect(end, 'an unterminated comment or declaration').toBeGreaterThan(open);
      i = end + (rest.startsWith('<!--') ? 3 : 2);
      continue;
    }
    const match = tag.exec(rest);
    if (!match) throw new Error(`not a well-formed tag at ${open}: ${rest.slice(0, 60)}`);
    const [whole, closing, name, attributeText, selfClosing] = match;
    if (closing) {
      expect(selfClosing, `</${name}/>`).toBe('');
      expect(stack.pop(), `</${name}> closes the element open at that point`).toBe(name);
    } else {
      const attributes: Record<string, string> = {};
      for (const [, key, value] of attributeText!.matchAll(/([\w:.-]+)="([^"]*)"/g)) {
        expect(attributes, `attribute ${key} twice on <${name}>`).not.toHaveProperty(key!);
        attributes[key!] = value!;
        checkText(value!);
      }
      if (stack.length === 0) roots++;
      elements.push({ name: name!, attributes });
      if (!selfClosing) stack.push(name!);
    }
    i = open + whole.length;
  }
  expect(stack, 'every element closed').toEqual([]);
  expect(roots, 'one root element').toBe(1);
  return elements;
}

let out = '';
let stdout = '';

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'weft.js'))) {
    throw new Error('dist/weft.js is missing: run `npm run build` (npm test does it first)');
  }
  out = mkdtempSync(join(tmpdir(), 'weft-bench-'));
  const result = await run(
    'node',
    [
      BENCH,
      '--sizes',
      '8',
      '--frames',
      '3',
      '--families',
      'symplectic-euler,stiff-pcg',
      '--backends',
      'cpu-f64,webgpu',
      '--peers',
      'jolt',
      '--budget',
      '1',
      '--out',
      out,
    ],
    { cwd: ROOT, maxBuffer: 1 << 24 },
  );
  stdout = result.stdout;
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('npm run bench on an 8×8 cloth, 3 frames, Jolt as the peer', () => {
  test('results.csv has the expected columns, one row per case, numbers where numbers belong', () => {
    const [header, ...rows] = parseCsv(readFileSync(join(out, 'results.csv'), 'utf8'));
    expect(header).toEqual(COLUMNS);
    // 2 families × 2 backends, and the peer on each of the 2 scenes.
    expect(rows).toHaveLength(6);
    const records = rows.map((row) => {
      expect(row).toHaveLength(COLUMNS.length);
      return Object.fromEntries(COLUMNS.map((c, i) => [c, row[i]!]));
    });
    for (const r of records) {
      const where = `${r['engine']} ${r['family']} ${r['backend']}`;
      expect(r['status'], `${where}: ${r['note']}`).toBe('ok');
      for (const column of COLUMNS.filter((c) => !TEXT.has(c))) {
        if (r[column] === '') continue;
        expect(Number.isFinite(Number(r[column])), `${where}: ${column} = '${r[column]}'`).toBe(true);
      }
      const number = (column: string) => Number(r[column]);
      expect(number('N')).toBe(8);
      expect(number('particles')).toBe(64);
      expect(number('ms_per_step')).toBeGreaterThan(0);
      expect(number('ms_per_step_min')).toBeLessThanOrEqual(number('ms_per_step'));
      expect(number('steps_per_s')).toBeCloseTo(1000 / number('ms_per_step'), -1);
      expect(number('sim_s_per_wall_s') / (number('dt_s') * number('steps_per_s'))).toBeCloseTo(1, 4);
      // 3 frames reached: the quality figures are there (0.05 s of falling).
      expect(number('sim_time_s')).toBeCloseTo(0.05, 9);
      expect(number('quality_time_s')).toBeCloseTo(0.05, 9);
      expect(number('sag_m')).toBeGreaterThan(0);
      expect(number('max_strain')).toBeGreaterThan(0);
      expect(number('max_strain')).toBeLessThan(1);
    }
    const stiff = records.filter((r) => r['engine'] === 'weft' && r['family'] === 'stiff-pcg');
    expect(stiff).toHaveLength(2);
    for (const r of stiff) expect(Number(r['cg_iterations_per_solve'])).toBeGreaterThan(0);
    const gpu = records.filter((r) => r['backend'] === 'webgpu');
    expect(gpu).toHaveLength(2);
    for (const r of gpu) {
      expect(['step', 'product kernel']).toContain(r['bandwidth_basis']);
      expect(Number(r['copy_GBps'])).toBeGreaterThan(0);
      expect(Number(r['copy_GBps_local'])).toBeLessThanOrEqual(Number(r['copy_GBps']));
      expect(Number(r['bandwidth_fraction'])).toBeGreaterThan(0);
    }
    // The same cloth falls the same way on every backend and engine over 3 frames (no swing yet).
    const sags = records.filter((r) => r['scene'] === 'warp').map((r) => Number(r['sag_m']));
    for (const sag of sags) expect(sag).toBeCloseTo(sags[0]!, 3);
  });

  test('chart.svg is well-formed, with labelled axes, a legend, and a line per series in each panel', () => {
    const svg = readFileSync(join(out, 'chart.svg'), 'utf8');
    const elements = parseXml(svg);
    expect(elements[0]?.name).toBe('svg');
    expect(elements[0]?.attributes['xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(svg).toContain('particles (N², log scale)');
    expect(svg).toContain('ms per step (log scale)');
    const panels = elements.filter((e) => e.name === 'g' && e.attributes['class'] === 'panel');
    expect(panels.map((p) => p.attributes['data-family'])).toEqual(['symplectic-euler', 'stiff-pcg']);
    const lines = elements.filter((e) => e.name === 'polyline' || e.name === 'path');
    // Each panel: Weft cpu-f64, Weft webgpu, Jolt.
    expect(lines.map((l) => l.attributes['data-series'])).toEqual([
      'cpu-f64',
      'webgpu',
      'jolt',
      'cpu-f64',
      'webgpu',
      'jolt',
    ]);
    for (const line of lines) expect(line.attributes['points']).toMatch(/^\d+(\.\d+)?,\d+(\.\d+)?$/);
    expect(elements.some((e) => e.name === 'g' && e.attributes['class'] === 'legend')).toBe(true);
  });

  test('the terminal table and the peer comparison are printed', () => {
    expect(stdout).toMatch(/ms\/step/);
    expect(stdout).toMatch(/Peers, Warp cloth/);
    expect(stdout).toMatch(/results\.csv/);
  });
});
