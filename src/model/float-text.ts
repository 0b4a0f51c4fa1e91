/** Numbers as text that reads back as the same number (the CLI's JSON, the OBJ writer). */

/**
 * The number with the fewest significant digits that reads back as the same float32 as `x`
 * (a float32 printed as a float64 shows noise: 0.30000001192092896 for 0.3). Non-float32 input
 * (and 0, NaN, ±Inf) is returned as is.
 */
export function shortestFloat32(x: number): number {
  if (!Number.isFinite(x) || x === 0 || Math.fround(x) !== x) return x;
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

/**
 * `x` as decimal text that reads back bit-exactly: as the same float64, or (`float32`) as the same
 * float32 with the fewest digits. −0 keeps its sign ("-0"; String(−0) is "0").
 */
export function exactText(x: number, float32: boolean): string {
  if (Object.is(x, -0)) return '-0';
  return String(float32 ? shortestFloat32(x) : x);
}
