// What the benchmark writes: a progress bar (stderr), a table (stdout), results.csv and chart.svg.

/** Every CSV column, in order; the numeric ones are numbers or empty. */
export const COLUMNS = [
  'engine',
  'scene',
  'family',
  'integrator',
  'solver',
  'backend',
  'precision',
  'device',
  'N',
  'particles',
  'springs',
  'dt_s',
  'steps_per_frame',
  'status',
  'samples',
  'timed_steps',
  'ms_per_step',
  'ms_per_step_min',
  'steps_per_s',
  'sim_s_per_wall_s',
  'setup_ms',
  'warm_up_ms',
  'cg_iterations_per_solve',
  'cg_iterations_max',
  'cg_residual_last',
  'sim_time_s',
  'quality_time_s',
  'sag_m',
  'max_strain',
  'bandwidth_basis',
  'bytes_per_step',
  'achieved_GBps',
  'copy_GBps',
  'copy_GBps_local',
  'bandwidth_fraction',
  'note',
];
const TEXT_COLUMNS = new Set([
  'engine',
  'scene',
  'family',
  'integrator',
  'solver',
  'backend',
  'precision',
  'device',
  'status',
  'bandwidth_basis',
  'note',
]);
export const NUMERIC_COLUMNS = COLUMNS.filter((c) => !TEXT_COLUMNS.has(c));

const csvNumber = (value) => (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6))));
const csvField = (value) => {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value === 'number') return Number.isFinite(value) ? csvNumber(value) : '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** RFC 4180 text: a header line, then one line per row. */
export function toCsv(rows) {
  return (
    [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((c) => csvField(row[c])).join(','))].join('\n') +
    '\n'
  );
}

// ---------------------------------------------------------------------------------------------
// Terminal

/** Three significant digits, without exponent for ordinary magnitudes. */
export function fmt(value, digits = 3) {
  if (value === undefined || value === null || value === '' || !Number.isFinite(value)) return '';
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return value.toExponential(digits - 1);
  return String(Number(value.toPrecision(digits)));
}

/** A fixed-width text table; numbers right-aligned. */
export function textTable(headers, lines) {
  const widths = headers.map((h, i) => Math.max(h.length, ...lines.map((line) => String(line[i]).length)));
  const numeric = headers.map((_, i) =>
    lines.every((line) => line[i] === '' || /^[-+0-9.e×%]+$/.test(line[i])),
  );
  const render = (cells) =>
    cells
      .map((cell, i) => (numeric[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [render(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...lines.map(render)].join('\n');
}

/** 'ok', 'ok, time-boxed' (no quality figures), 'ok, blown up', or why it did not run. */
export const statusText = (r) =>
  r.status !== 'ok'
    ? r.status
    : r.note?.startsWith('blown up')
      ? 'ok, blown up'
      : r.sag_m === undefined
        ? 'ok, time-boxed'
        : 'ok';

/** The results table: one line per case. */
export function resultsTable(rows, qualityTime = '2') {
  const headers = [
    'scene',
    'family',
    'engine/backend',
    'N',
    'ms/step',
    'steps/s',
    'sim s/s',
    'CG it',
    `sag@${qualityTime}s m`,
    'strain',
    'BW frac',
    'status',
  ];
  const lines = rows.map((r) => [
    r.scene,
    r.family,
    r.engine === 'weft' ? r.backend : r.engine,
    String(r.N),
    fmt(r.ms_per_step),
    fmt(r.steps_per_s),
    fmt(r.sim_s_per_wall_s),
    fmt(r.cg_iterations_per_solve),
    fmt(r.sag_m),
    fmt(r.max_strain),
    r.bandwidth_fraction === undefined || r.bandwidth_fraction === ''
      ? ''
      : `${fmt(r.bandwidth_fraction, 2)}${r.bandwidth_basis === 'product kernel' ? 'ᵖ' : ''}`,
    statusText(r),
  ]);
  return textTable(headers, lines);
}

/**
 * A progress bar on stderr: redrawn in place on a terminal, one line per finished case otherwise
 * (so logs stay readable).
 */
export class Progress {
  constructor(total, stream = process.stderr) {
    this.total = total;
    this.done = 0;
    this.stream = stream;
    this.tty = Boolean(stream.isTTY);
    this.started = performance.now();
    this.label = '';
    this.detail = '';
  }

  elapsed() {
    const seconds = Math.round((performance.now() - this.started) / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  }

  bar() {
    const width = 24;
    const filled = Math.round((width * this.done) / Math.max(1, this.total));
    return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(this.done).padStart(String(this.total).length)}/${this.total}`;
  }

  draw() {
    if (!this.tty) return;
    const line = `${this.bar()} ${this.elapsed()}  ${this.label} ${this.detail}`;
    const columns = this.stream.columns || 120;
    this.stream.write(`\r${line.slice(0, columns - 1).padEnd(columns - 1)}`);
  }

  start(label) {
    this.label = label;
    this.detail = '';
    this.draw();
  }

  /** Progress inside a case; redrawn at most ten times a second. */
  update(detail) {
    this.detail = detail;
    const now = performance.now();
    if (this.tty && !(now - (this.lastDraw ?? 0) < 100)) {
      this.lastDraw = now;
      this.draw();
    }
  }

  finish(summary) {
    this.done++;
    if (this.tty) {
      this.detail = summary;
      this.draw();
    } else {
      this.stream.write(`${this.bar()} ${this.elapsed()}  ${this.label}: ${summary}\n`);
    }
  }

  end() {
    if (this.tty) this.stream.write('\n');
  }
}

// ---------------------------------------------------------------------------------------------
// SVG chart: ms per step against particles, log–log, one panel per family, one line per backend
// and peer.

const SERIES_STYLE = {
  'cpu-f64': { color: '#1f77b4', dash: '' },
  'cpu-f32': { color: '#17becf', dash: '' },
  webgpu: { color: '#d62728', dash: '' },
  jolt: { color: '#2ca02c', dash: '6 3' },
  ammo: { color: '#ff7f0e', dash: '6 3' },
};
const FALLBACK_COLORS = ['#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

export const escapeXml = (text) =>
  String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** Tick values for a log axis over [lo, hi] (powers of ten, with 2 and 5 when the span is short). */
function logTicks(lo, hi) {
  const ticks = [];
  const decades = Math.log10(hi / lo);
  const mantissas = decades <= 2 ? [1, 2, 5] : [1];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of mantissas) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

const tickLabel = (v) =>
  v >= 1e4 || v < 1e-2 ? v.toExponential(0).replace('e+', 'e') : String(Number(v.toPrecision(3)));

/** The series key of a row: the Weft backend, or the peer's name. */
export const seriesOf = (row) => (row.engine === 'weft' ? row.backend : row.engine);

/**
 * @param {Array<Record<string, any>>} rows
 * @param {{ title: string, subtitle?: string, families: string[], sceneOf: (family: string) => string,
 *           familyLabel: (family: string) => string, seriesLabel?: (series: string) => string }} o
 */
export function chartSvg(
  rows,
  { title, subtitle = '', families, sceneOf, familyLabel, seriesLabel = (s) => s },
) {
  const ok = rows.filter((r) => r.status === 'ok' && Number.isFinite(r.ms_per_step) && r.ms_per_step > 0);
  const seriesNames = [...new Set(rows.map(seriesOf))];
  const style = (name, i) =>
    SERIES_STYLE[name] ?? { color: FALLBACK_COLORS[i % FALLBACK_COLORS.length], dash: '' };
  const styles = Object.fromEntries(seriesNames.map((name, i) => [name, style(name, i)]));

  const panelW = 460;
  const panelH = 320;
  const margin = { left: 70, right: 20, top: 36, bottom: 50 };
  const columns = Math.min(2, Math.max(1, families.length));
  const panelRows = Math.ceil(families.length / columns);
  const headerH = subtitle ? 64 : 44;
  // Legend layout first (entries flow left to right and wrap; 7 px per character), for the height.
  const legendEntries = seriesNames.map((name) => ({ name, label: seriesLabel(name), x: 0, row: 0 }));
  {
    let lx = 20;
    let row = 0;
    for (const entry of legendEntries) {
      const entryWidth = 34 + 7 * entry.label.length + 24;
      if (lx > 20 && lx + entryWidth > columns * panelW) {
        lx = 20;
        row++;
      }
      Object.assign(entry, { x: lx, row });
      lx += entryWidth;
    }
  }
  const blownUpNote = ok.some((r) => r.note?.startsWith('blown up'));
  const legendRows = (legendEntries.at(-1)?.row ?? 0) + 1 + (blownUpNote ? 1 : 0);
  const legendH = 16 + 20 * legendRows + 8;
  const width = columns * panelW;
  const height = headerH + panelRows * panelH + legendH;

  const particles = ok.map((r) => r.particles);
  const xLo = particles.length ? 10 ** Math.floor(Math.log10(Math.min(...particles))) : 1e2;
  const xHi = particles.length ? 10 ** Math.ceil(Math.log10(Math.max(...particles))) : 1e5;

  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<title>${escapeXml(title)}</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
  );
  if (subtitle)
    out.push(
      `<text x="${width / 2}" y="46" text-anchor="middle" fill="#555555">${escapeXml(subtitle)}</text>`,
    );

  families.forEach((family, index) => {
    const scene = sceneOf(family);
    const inPanel = ok.filter((r) => (r.engine === 'weft' ? r.family === family : r.scene === scene));
    const ys = inPanel.map((r) => r.ms_per_step);
    const yLo = ys.length ? 10 ** Math.floor(Math.log10(Math.min(...ys))) : 1e-2;
    const yHi = ys.length ? 10 ** Math.ceil(Math.log10(Math.max(...ys))) : 1e2;
    const ox = (index % columns) * panelW + margin.left;
    const oy = headerH + Math.floor(index / columns) * panelH + margin.top;
    const w = panelW - margin.left - margin.right;
    const h = panelH - margin.top - margin.bottom;
    const x = (v) => ox + (w * Math.log10(v / xLo)) / Math.log10(xHi / xLo);
    const y = (v) => oy + h - (h * Math.log10(v / yLo)) / Math.log10(yHi / yLo);
    const r2 = (v) => Math.round(v * 100) / 100;

    out.push(`<g class="panel" data-family="${escapeXml(family)}">`);
    out.push(
      `<text x="${r2(ox + w / 2)}" y="${oy - 12}" text-anchor="middle" font-weight="bold">${escapeXml(familyLabel(family))}</text>`,
    );
    out.push(`<rect x="${ox}" y="${oy}" width="${w}" height="${h}" fill="none" stroke="#333333"/>`);
    for (const t of logTicks(xLo, xHi)) {
      out.push(`<line x1="${r2(x(t))}" y1="${oy}" x2="${r2(x(t))}" y2="${oy + h}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${r2(x(t))}" y="${oy + h + 16}" text-anchor="middle">${tickLabel(t)}</text>`);
    }
    for (const t of logTicks(yLo, yHi)) {
      out.push(`<line x1="${ox}" y1="${r2(y(t))}" x2="${ox + w}" y2="${r2(y(t))}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${ox - 6}" y="${r2(y(t) + 4)}" text-anchor="end">${tickLabel(t)}</text>`);
    }
    out.push(
      `<text x="${r2(ox + w / 2)}" y="${oy + h + 36}" text-anchor="middle">particles (N², log scale)</text>`,
    );
    out.push(
      `<text x="${ox - 52}" y="${r2(oy + h / 2)}" text-anchor="middle" transform="rotate(-90 ${ox - 52} ${r2(oy + h / 2)})">ms per step (log scale)</text>`,
    );
    for (const name of seriesNames) {
      const points = inPanel.filter((r) => seriesOf(r) === name).sort((a, b) => a.particles - b.particles);
      if (!points.length) continue;
      const { color, dash } = styles[name];
      const coordinates = points.map((p) => `${r2(x(p.particles))},${r2(y(p.ms_per_step))}`).join(' ');
      out.push(
        `<polyline class="series" data-series="${escapeXml(name)}" points="${coordinates}" fill="none" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      );
      for (const p of points) {
        // Hollow: the run blew up (finite but meaningless), so its speed compares with nothing.
        const blownUp = p.note?.startsWith('blown up');
        const tip = `${seriesLabel(name)}, N = ${p.N}: ${fmt(p.ms_per_step)} ms/step${blownUp ? ' (blew up)' : ''}`;
        out.push(
          `<circle cx="${r2(x(p.particles))}" cy="${r2(y(p.ms_per_step))}" r="3" fill="${blownUp ? '#ffffff' : color}" stroke="${color}"><title>${escapeXml(tip)}</title></circle>`,
        );
      }
    }
    out.push('</g>');
  });

  const legendTop = headerH + panelRows * panelH + 16;
  out.push('<g class="legend">');
  for (const { name, label, x: lx, row } of legendEntries) {
    const ly = legendTop + 20 * row;
    const { color, dash } = styles[name];
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 28}" y2="${ly}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
    );
    out.push(`<text x="${lx + 34}" y="${ly + 4}">${escapeXml(label)}</text>`);
  }
  if (blownUpNote) {
    out.push(
      `<text x="20" y="${legendTop + 20 * (legendRows - 1) + 4}" fill="#555555">Hollow markers: the run blew up (finite but meaningless positions); its speed compares with nothing.</text>`,
    );
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n') + '\n';
}
