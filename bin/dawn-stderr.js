// @ts-check
/**
 * Dawn prints what it finds wrong with a driver while it looks for adapters straight to file
 * descriptor 2, from native code that no JavaScript can intercept: e.g. for Mesa's lavapipe,
 *
 *   Warning: Vulkan shaderUniform*ArrayDynamicIndexing required.
 *    - While initializing adapter (backend=BackendType::Vulkan)
 *       at InitializeImpl (…/dawn/native/vulkan/PhysicalDeviceVk.cpp:257)
 *   (a blank line)
 *
 * on every run of a machine that has such a driver, though Weft then uses another adapter.
 * bin/weft.js passes the CLI's stderr through this filter, which drops exactly such blocks (a
 * "Warning: " line whose " - While …" context lines include "initializing adapter", its "at"
 * frames and the blank line after them) and passes everything else on unchanged and at once: an
 * unfinished line (a progress bar redrawn with \r) waits only while it may still begin one.
 */

const WARNING = 'Warning: ';
const CONTEXT = ' - While ';
const ADAPTER = ' - While initializing adapter';

/** @param {string} whole @param {string} part whether `part` is, or may still grow into, `whole…` */
const mayStart = (whole, part) => whole.startsWith(part) || part.startsWith(whole);
/** @param {string} line a backtrace frame ("    at Function (file:line)") or a blank line */
const frameOrBlank = (line) => /^\s+at /.test(line) || line.trim() === '';
/** @param {string} part whether an unfinished line may still become a frame or a blank line */
const mayBeFrameOrBlank = (part) => /^\s*$/.test(part) || /^\s+(a|at|at .*)$/.test(part);

export class DawnWarningFilter {
  /** Text from the start of a line, not yet passed on or dropped. */
  #buffer = '';
  /** The current line's start was passed on: pass the rest of it on too. */
  #midLine = false;
  /** A "Warning: " line and the " - While " lines after it, not yet decided. @type {string[]} */
  #held = [];
  /** After a dropped block: its frames and the blank line that ends it are dropped too. */
  #dropping = false;

  /**
   * @param {string} text the next piece of the stream
   * @returns {string} what to write now
   */
  push(text) {
    this.#buffer += text;
    let out = '';
    for (;;) {
      const newline = this.#buffer.indexOf('\n');
      if (this.#midLine || newline >= 0) {
        const end = newline < 0 ? this.#buffer.length : newline + 1;
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end);
        out += this.#midLine ? line : this.#line(line);
        this.#midLine = newline < 0;
        if (newline < 0) return out;
      } else {
        return out + this.#unfinished();
      }
    }
  }

  /** @returns {string} what is left at the end of the stream */
  end() {
    const out = this.#resolveHeld();
    const rest = this.#dropping && frameOrBlank(this.#buffer) ? '' : this.#buffer;
    this.#buffer = '';
    return out + rest;
  }

  /** The held block, dropped when it is Dawn's adapter warning (then dropping its tail), or passed on. */
  #resolveHeld() {
    const held = this.#held;
    this.#held = [];
    if (held.some((line) => line.startsWith(ADAPTER))) {
      this.#dropping = true;
      return '';
    }
    return held.join('');
  }

  /** @param {string} line a whole line, with its "\n" @returns {string} what to pass on */
  #line(line) {
    const bare = line.replace(/\r?\n$/, '');
    let out = '';
    if (this.#held.length > 0) {
      if (bare.startsWith(CONTEXT)) {
        this.#held.push(line);
        return '';
      }
      out += this.#resolveHeld();
    }
    if (this.#dropping) {
      this.#dropping = bare.trim() !== '' && frameOrBlank(bare);
      if (frameOrBlank(bare)) return out;
    }
    if (bare.startsWith(WARNING)) {
      this.#held = [line];
      return out;
    }
    return out + line;
  }

  /** The unfinished line in the buffer: held back while it may belong to a block, else passed on. */
  #unfinished() {
    const part = this.#buffer;
    if (part === '') return '';
    let out = '';
    if (this.#held.length > 0) {
      if (mayStart(CONTEXT, part)) return '';
      out += this.#resolveHeld();
    }
    if (this.#dropping) {
      if (mayBeFrameOrBlank(part)) return out;
      this.#dropping = false;
    }
    if (mayStart(WARNING, part)) return out;
    this.#buffer = '';
    this.#midLine = true;
    return out + part;
  }
}
