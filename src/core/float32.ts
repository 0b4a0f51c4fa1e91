/** What float32 — the WebGPU path's only float — can hold. */

/** The largest finite float32, and the smallest positive normal one. */
const FLOAT32_MAX = 3.4028234663852886e38;
const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;

/** The phrase an error uses for a value outside the range below. */
export const FLOAT32_RANGE_TEXT = "outside float32's range on WebGPU (normal magnitudes 1.2e-38 to 3.4e38)";

/**
 * Whether a finite `value` would not survive float32: beyond ±3.4e38 it becomes Inf, and a non-zero
 * one below 1.2e-38 in magnitude flushes to 0. ±Infinity and NaN are not judged here.
 */
export function outsideFloat32(value: number): boolean {
  const magnitude = Math.abs(value);
  return (
    Number.isFinite(value) && (magnitude > FLOAT32_MAX || (magnitude > 0 && magnitude < FLOAT32_MIN_NORMAL))
  );
}
