/** Drops Dawn's adapter-discovery warnings from a text stream (bin/dawn-stderr.js). */
export declare class DawnWarningFilter {
  /** The next piece of the stream; returns what to write now. */
  push(text: string): string;
  /** Returns what is left at the end of the stream. */
  end(): string;
}
