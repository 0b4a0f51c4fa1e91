/** A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise. */
export class ProgressBar {
  private lastDecile = -1;
  private readonly started = performance.now();
  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number): void {
    const fraction = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = rate > 0 && done < this.total ? `, about ${duration((this.total - done) / rate)} left` : '';
    const text = `${this.label} ${Math.round(fraction * 100)
      .toString()
      .padStart(3)}% ${done}/${this.total} steps, ${rate.toFixed(0)} steps/s${left}`;
    // bin/weft.js pipes the CLI's stderr through its filter of Dawn's warnings, and says when
    // the stderr behind it is a terminal.
    if (this.stream.isTTY || (this.stream === process.stderr && process.env['WEFT_STDERR_TTY'] === '1')) {
      const width = 30;
      const filled = Math.round(fraction * width);
      this.stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
      if (fraction === 1) this.stream.write('\n');
      return;
    }
    const decile = Math.floor(fraction * 10);
    if (decile !== this.lastDecile) {
      this.lastDecile = decile;
      this.stream.write(`${text}\n`);
    }
  }
}

/** A duration in words a person reads at a glance: 42 s, 7 min, 3 h 20 min, 12 days. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'forever';
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  return `${Math.round(seconds / 86_400).toLocaleString('en')} days`;
}
