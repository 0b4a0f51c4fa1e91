/**
 * Element-wise comparison of numeric arrays against a tolerance interval, with a failure message a
 * person can act on (after gpuweb/cts `util/check_contents.ts`): every failing entry's index,
 * particle and component, actual, expected, difference and allowed error.
 */
import { expect } from 'vitest';

/**
 * Allowed error of one entry: `absolute + relative · |expected|`. A number is an absolute
 * tolerance alone.
 */
export type Tolerance = number | { absolute: number; relative?: number };

export interface ExpectCloseOptions {
  /**
   * Values per item, for naming entries: 3 (default) reads index k as particle ⌊k/3⌋, component
   * x/y/z; 1 names the index alone.
   */
  stride?: number;
  /** Failing entries listed in the message, worst first. Default 8. */
  maxListed?: number;
}

/** The largest |actual − expected| over two arrays, and where it is (index −1 when empty). */
export function maxAbsError(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
): { error: number; index: number } {
  let error = 0;
  let index = actual.length > 0 ? 0 : -1;
  for (let k = 0; k < Math.min(actual.length, expected.length); k++) {
    const diff = Math.abs(actual[k]! - expected[k]!);
    // NaN counts as the worst possible error.
    if (diff > error || Number.isNaN(diff)) {
      error = Number.isNaN(diff) ? Infinity : diff;
      index = k;
    }
  }
  return { error, index };
}

function allowed(tolerance: Tolerance, expected: number): number {
  if (typeof tolerance === 'number') return tolerance;
  return tolerance.absolute + (tolerance.relative ?? 0) * Math.abs(expected);
}

/** 1e-6 rather than 0.000001. */
function formatBound(x: number): string {
  return x !== 0 && (Math.abs(x) < 1e-3 || Math.abs(x) >= 1e6) ? x.toExponential() : String(x);
}

function describeTolerance(tolerance: Tolerance): string {
  if (typeof tolerance === 'number') return `|actual − expected| ≤ ${formatBound(tolerance)}`;
  const relative = tolerance.relative ? ` + ${formatBound(tolerance.relative)}·|expected|` : '';
  return `|actual − expected| ≤ ${formatBound(tolerance.absolute)}${relative}`;
}

function entryName(k: number, stride: number): string {
  if (stride === 1) return `index ${k}`;
  const component = stride <= 4 ? 'xyzw'[k % stride] : String(k % stride);
  return `index ${k} (particle ${Math.floor(k / stride)}, ${component})`;
}

/**
 * Fails the test unless every `actual[k]` lies within the tolerance of `expected[k]` (and the
 * lengths agree). Non-finite values always fail.
 */
export function expectClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: Tolerance,
  label: string,
  options: ExpectCloseOptions = {},
): void {
  const stride = options.stride ?? 3;
  const maxListed = options.maxListed ?? 8;
  if (actual.length !== expected.length) {
    expect.fail(`${label}: length ${actual.length}, expected ${expected.length}`);
  }
  const failures: { k: number; diff: number; allowed: number }[] = [];
  for (let k = 0; k < actual.length; k++) {
    const a = actual[k]!;
    const e = expected[k]!;
    const bound = allowed(tolerance, e);
    const diff = Math.abs(a - e);
    if (!Number.isFinite(a) || !Number.isFinite(e) || !(diff <= bound)) {
      failures.push({ k, diff: Number.isNaN(diff) ? Infinity : diff, allowed: bound });
    }
  }
  if (failures.length === 0) return;
  failures.sort((p, q) => q.diff - p.diff);
  const lines = failures
    .slice(0, maxListed)
    .map(
      ({ k, diff, allowed: bound }) =>
        `  ${entryName(k, stride)}: actual ${actual[k]}, expected ${expected[k]}, |diff| ${diff.toExponential(3)} > allowed ${bound.toExponential(3)}`,
    );
  if (failures.length > maxListed) lines.push(`  … and ${failures.length - maxListed} more`);
  expect.fail(
    `${label}: ${failures.length} of ${actual.length} values outside ${describeTolerance(tolerance)} (worst first):\n${lines.join('\n')}`,
  );
}
