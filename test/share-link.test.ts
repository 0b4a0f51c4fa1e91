/**
 * The cloth demo's link reader (examples/cloth/share-link.ts readLink): every parameter a link may
 * hold is applied only if its control allows it, and each one not applied is named with what is
 * allowed — a hand-written link never stops the page. The rules here are written out by hand, as
 * the demo derives them from its controls (examples/cloth/main.ts linkRules).
 */
import { describe, expect, test } from 'vitest';
import { allowedText, readLink, type LinkRule } from '../examples/cloth/share-link.ts';

const RULES: Record<string, LinkRule> = {
  scene: { kind: 'choice', values: ['square', 'garment', 'flag', 'character'] },
  size: { kind: 'number', min: 2, max: 512, integer: true },
  dt: { kind: 'number', min: 0, max: Infinity, minOpen: true },
  tolerance: { kind: 'number', min: 0, max: 1, minOpen: true, maxOpen: true },
  substeps: { kind: 'number', min: 1, max: 1000, integer: true },
  wind: { kind: 'number', min: 0, max: 15 },
  sphere: { kind: 'flag' },
};

const read = (query: string) => readLink(new URLSearchParams(query), RULES);

describe('readLink applies what the controls allow', () => {
  test('a size the menu lacks but the model takes, and the share link’s own values', () => {
    const link = read(
      'scene=character&size=48&dt=0.004166667&tolerance=0.001&sphere=0&wind=7.5&camera=330,28,7.2',
    );
    expect(link.problems).toEqual([]);
    expect(Object.fromEntries(link.values)).toEqual({
      scene: 'character',
      size: '48',
      dt: '0.004166667',
      tolerance: '0.001',
      sphere: false,
      wind: '7.5',
    });
    expect(link.camera).toBe('330,28,7.2');
  });

  test('numbers are written as numbers (4.8e1 is 48), flags as true/false; the last repeat counts', () => {
    const link = read('size=4.8e1&sphere=true&substeps=3&substeps=5');
    expect(link.problems).toEqual([]);
    expect(link.values.get('size')).toBe('48');
    expect(link.values.get('sphere')).toBe(true);
    expect(link.values.get('substeps')).toBe('5');
  });

  test('the range ends: 2 and 512 particles, the largest wind', () => {
    expect(read('size=2').values.get('size')).toBe('2');
    expect(read('size=512').values.get('size')).toBe('512');
    expect(read('wind=15').values.get('wind')).toBe('15');
  });
});

describe('readLink names each parameter it does not apply, with what is allowed', () => {
  test.each([
    ['size=48.5', 'size=48.5: an integer from 2 to 512'],
    ['size=1', 'size=1: an integer from 2 to 512'],
    ['size=513', 'size=513: an integer from 2 to 512'],
    ['size=', 'size=: an integer from 2 to 512'],
    ['size=abc', 'size=abc: an integer from 2 to 512'],
    ['dt=0', 'dt=0: a number > 0'],
    ['dt=-0.01', 'dt=-0.01: a number > 0'],
    ['dt=Infinity', 'dt=Infinity: a number > 0'],
    ['tolerance=1', 'tolerance=1: a number > 0 and < 1'],
    ['substeps=0', 'substeps=0: an integer from 1 to 1000'],
    ['wind=16', 'wind=16: a number ≥ 0 and ≤ 15'],
    ['wind=NaN', 'wind=NaN: a number ≥ 0 and ≤ 15'],
    ['sphere=no', 'sphere=no: 1 or 0'],
    ['scene=cape', 'scene=cape: one of square, garment, flag, character'],
    ['sise=48', 'sise: not a parameter of this page (it reads scene, size, dt, tolerance, substeps, wind, sphere, camera)'], // prettier-ignore
    ['toString=1', 'toString: not a parameter of this page (it reads scene, size, dt, tolerance, substeps, wind, sphere, camera)'], // prettier-ignore
    [
      'camera=330,95,7',
      'camera=330,95,7: azimuth,elevation,distance — degrees, -11.5 to 86 degrees, 1 to 30 m',
    ],
    [
      'camera=330,28,0.5',
      'camera=330,28,0.5: azimuth,elevation,distance — degrees, -11.5 to 86 degrees, 1 to 30 m',
    ],
    ['camera=a,b,c', 'camera=a,b,c: azimuth,elevation,distance — degrees, -11.5 to 86 degrees, 1 to 30 m'],
    [
      'camera=1,2,3,4',
      'camera=1,2,3,4: azimuth,elevation,distance — degrees, -11.5 to 86 degrees, 1 to 30 m',
    ],
  ])('%s', (query, problem) => {
    const link = read(query);
    expect(link.problems).toEqual([problem]);
    expect(link.values.size).toBe(0);
    expect(link.camera).toBeNull();
  });

  test('the good parameters of a link still apply beside the bad ones', () => {
    const link = read('size=48&dt=abc&wnd=3');
    expect(Object.fromEntries(link.values)).toEqual({ size: '48' });
    expect(link.problems).toHaveLength(2);
    expect(link.problems[0]).toMatch(/^dt=abc: /);
    expect(link.problems[1]).toMatch(/^wnd: not a parameter/);
  });

  test('a long value is cut to 40 characters in the notice', () => {
    const [problem] = read(`scene=${'x'.repeat(500)}`).problems;
    expect(problem).toBe(`scene=${'x'.repeat(39)}…: one of square, garment, flag, character`);
  });

  test('a camera with parts left out keeps them for the default view', () => {
    expect(read('camera=,,5').camera).toBe(',,5');
    expect(read('camera=200').camera).toBe('200');
  });
});

test('allowedText for a number with no bounds, and an integer with one', () => {
  expect(allowedText({ kind: 'number', min: -Infinity, max: Infinity })).toBe('a number');
  expect(allowedText({ kind: 'number', min: 1, max: Infinity, integer: true })).toBe('an integer ≥ 1');
});
