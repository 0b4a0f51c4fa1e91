/**
 * Why an adaptive integration could not go on. Thrown instead of returning a state that was not
 * computed to the requested accuracy where no smaller step is allowed, so that a caller never
 * mistakes it for a result.
 */
export class WeftStepSizeError extends Error {
  constructor(
    /** Simulated time reached, s (the state at this time is still readable). */
    readonly time: number,
    /** The step that failed, s. */
    readonly stepSize: number,
    /** What failed at the minimum step. */
    readonly reason: 'newton-failed' | 'non-finite' | 'accuracy',
  ) {
    const what = {
      'newton-failed': 'the Newton iteration failed to converge',
      'non-finite': 'the step produced NaN or Inf (the scheme is unstable at this step size)',
      accuracy: 'the error estimate is above the requested accuracy',
    }[reason];
    super(
      `adaptive step at t = ${time} s: ${what} at the minimum step ${stepSize} s (loosen accuracy, lower minStep, or use velocity-implicit-euler for stiff systems)`,
    );
    this.name = 'WeftStepSizeError';
  }
}
