/**
 * The guard every simulation calls before it does anything: after destroy() a call throws
 * {@link WeftDestroyedError}; once its GPUDevice is lost (a borrowed device destroyed by its owner,
 * a driver reset), {@link WeftDeviceLostError} with the device's reason — where a read would
 * otherwise return zeros as if they were a state.
 */
import { WeftDestroyedError, WeftDeviceLostError } from '../../core/errors.ts';

/** How long a failed read waits for the device to report a loss, ms. */
const LOSS_REPORT_MS = 200;

export class Lifecycle {
  private destroyed = false;
  private lost: { reason: string; message: string } | null = null;
  private lostSettled: Promise<unknown> = Promise.resolve();

  /** Starts watching `device` for loss (the lost promise settles once; a destroy() by us counts). */
  watch(device: GPUDevice): void {
    this.lostSettled = device.lost.then((info) => {
      if (!this.destroyed) this.lost = { reason: info.reason, message: info.message };
    });
  }

  /**
   * `read`, with its failure explained: a read interrupted by a device loss rejects with an empty
   * DOMException (Dawn: AbortError) — give the loss a moment to be reported, then throw
   * {@link WeftDeviceLostError} instead. A loss during a read that succeeded throws too (the
   * values would be zeros).
   */
  async guard<T>(what: string, read: () => Promise<T>): Promise<T> {
    this.check(what);
    let value: T;
    try {
      value = await read();
    } catch (error) {
      await Promise.race([this.lostSettled, new Promise((resolve) => setTimeout(resolve, LOSS_REPORT_MS))]);
      this.check(what);
      throw error;
    }
    this.check(what);
    return value;
  }

  /** Throws when the simulation may no longer be used; `what` names the call. */
  check(what: string): void {
    if (this.destroyed) throw new WeftDestroyedError(what);
    if (this.lost) throw new WeftDeviceLostError(what, this.lost.reason, this.lost.message);
  }

  /** Marks the simulation destroyed; true the first time (so that resources are freed once). */
  destroy(): boolean {
    const first = !this.destroyed;
    this.destroyed = true;
    return first;
  }
}
