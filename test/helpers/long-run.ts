/**
 * Scene sizes for the two test commands. `npm test` (CI, 2 cores, under 15 minutes) runs each
 * heavy scene at the smallest size that still exercises what it checks — contacts made, pairs in
 * reach, solves that iterate — with the same assertions and tolerances; `npm run test:long`
 * (WEFT_LONG=1) runs the same tests at their full size.
 */

/** True under `npm run test:long`. */
export const LONG_RUN = process.env['WEFT_LONG'] === '1';

/** `short` under `npm test`, `long` under `npm run test:long`. */
export function shortOrLong<T>(short: T, long: T): T {
  return LONG_RUN ? long : short;
}
