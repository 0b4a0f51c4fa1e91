/**
 * The WGSL mutator's runner (not part of `npm test`; vitest.mutate-wgsl.config.ts runs it, from
 * scripts/mutate-wgsl.mjs). Reads the mutants from the JSON file named by WEFT_WGSL_MUTANTS
 * ([{ id, file, source }]), and for each: sets the override that the config's plugin serves for
 * that shader, re-imports the quick cases (vi.resetModules), runs them until one fails, and
 * appends one JSON line per event to WEFT_WGSL_RESULTS: { id, event: 'start' } then
 * { id, event: 'end', status: 'killed' | 'survived', by, reason, seconds }. The unmutated shaders
 * run first (id 'baseline') on the cases the batch's mutants can reach, and must pass them. A mutant that hangs the GPU is the script's to kill.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { expect, test, vi } from 'vitest';
import { acquireDevice } from '../src/index.ts';

interface Mutant {
  id: string;
  file: string;
  source: string;
}

const mutants = JSON.parse(readFileSync(process.env['WEFT_WGSL_MUTANTS'] ?? '', 'utf8')) as Mutant[];
const results = process.env['WEFT_WGSL_RESULTS'] ?? '';
/** WEFT_WGSL_CASES (the mutator's --cases): only the cases whose label matches it. */
const onlyCases = process.env['WEFT_WGSL_CASES'] ? new RegExp(process.env['WEFT_WGSL_CASES']) : undefined;
const override = globalThis as { __weftWgslOverride?: { file: string; source: string } };

function log(line: Record<string, unknown>): void {
  appendFileSync(results, `${JSON.stringify(line)}\n`);
}

/**
 * The cases that can reach a shader's kernels (a mutant elsewhere cannot change a case that never
 * compiles it): the multigrid kernels run only on multigrid cases, the fused adaptive kernel only
 * on fused runs, the wind's only with wind, the contacts' only with colliders, the strain limit's
 * only with strain limits, dihedral bending's only with bending, self-collision's (self-*.wgsl,
 * compiled only for a model with selfCollision) only with self-collision — its dynamics'
 * (self-pair-*, self-fail-*) only in whole runs ('self-collision, …') and the diagonal blocks'
 * kernel check (which steps a fold, with bending too), not the detection's kernel check; every
 * other shader may reach every case.
 */
function relevant(file: string, label: string): boolean {
  if (onlyCases && !onlyCases.test(label)) return false;
  if (file.startsWith('mg-')) return label.includes('multigrid');
  if (file.startsWith('fused-')) return label.includes('fused');
  if (file.startsWith('aero-') || file === 'wind-clock.wgsl') return label.includes('wind');
  if (file.startsWith('contact-') || file.startsWith('collider')) return /collider|sphere/.test(label);
  if (file === 'strain-correction.wgsl') return label.includes('strain');
  const selfDiagonal = label.startsWith('self-collision: the diagonal blocks');
  if (file.startsWith('bending-')) return label.includes('bending') || selfDiagonal;
  if (/^self-(pair|fail)-/.test(file)) return label.includes('self-collision, ') || selfDiagonal;
  if (file.startsWith('self-')) return label.includes('self');
  return true;
}

/** Seconds per case of the last run of {@link failures}. */
let caseSeconds: Record<string, number> = {};

async function failures(
  device: GPUDevice,
  files: readonly string[],
): Promise<{ by: string; reason: string } | undefined> {
  vi.resetModules();
  caseSeconds = {};
  const { QUICK_CASES, checkQuickCase } = await import('./helpers/wgsl-quick-cases.ts');
  for (const c of QUICK_CASES.filter((q) => files.some((file) => relevant(file, q.label)))) {
    let reasons: string[];
    const t0 = performance.now();
    try {
      reasons = await checkQuickCase(device, c);
    } catch (error) {
      reasons = [`threw: ${error instanceof Error ? error.message : String(error)}`];
    }
    caseSeconds[c.label] = Math.round(performance.now() - t0) / 1000;
    if (reasons.length) return { by: c.label, reason: reasons.join('; ').slice(0, 300) };
  }
  return undefined;
}

test('WGSL mutants', async () => {
  const { device } = await acquireDevice();
  try {
    const started = performance.now();
    delete override.__weftWgslOverride;
    // The unmutated shaders on the cases this batch's mutants will run.
    const baseline = await failures(device, [...new Set(mutants.map((m) => m.file))]);
    log({ id: 'baseline', event: 'end', status: baseline ? 'failed' : 'passed', ...baseline, seconds: (performance.now() - started) / 1000, cases: caseSeconds }); // prettier-ignore
    expect(baseline, 'the unmutated shaders pass the quick cases').toBeUndefined();
    for (const mutant of mutants) {
      log({ id: mutant.id, event: 'start' });
      const t0 = performance.now();
      override.__weftWgslOverride = { file: mutant.file, source: mutant.source };
      const failed = await failures(device, [mutant.file]);
      // Let the device finish (and surface any lost-device error) before the next mutant.
      await device.queue.onSubmittedWorkDone();
      log({ id: mutant.id, event: 'end', status: failed ? 'killed' : 'survived', ...failed, seconds: (performance.now() - t0) / 1000, ...(failed ? {} : { cases: caseSeconds }) }); // prettier-ignore
    }
  } finally {
    delete override.__weftWgslOverride;
    device.destroy();
  }
});
