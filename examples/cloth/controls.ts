/**
 * The cloth demo's control panel (examples/cloth/index.html): its settings in SI units, what a
 * link may set each control to, and the hints and suggested steps that follow a change.
 */
import {
  INTEGRATOR_NAMES,
  INTEGRATORS,
  type FixedStepIntegratorName,
  type FixedStepSimulationOptions,
  type IntegratorName,
} from '../../src/index.ts';
import { contactStepLimit, explicitStepLimit, type Pins, type SceneSettings } from './scenes.ts';
import { isLibraryScene } from './world.ts';
import { readLink, type LinkRule } from './share-link.ts';

/** The frame the simulation's substeps should cover to run in real time, s. */
export const FRAME_TIME = 1 / 60;
/**
 * Particles along the square's side that a link may ask for (the menu offers 32 to 512): buildCloth
 * takes 2 and up; past the menu's 512² the GPU's buffers outgrow common limits.
 */
export const SIZE_RANGE = { min: 2, max: 512 } as const;

/** What createSimulation runs on WebGPU with a fixed step: the demo's schemes. */
export type GpuIntegratorName = FixedStepIntegratorName;
export const namesOf = (family: string): GpuIntegratorName[] =>
  INTEGRATOR_NAMES.filter((name) => INTEGRATORS[name].family === family) as GpuIntegratorName[];
export const GPU_INTEGRATOR_NAMES: readonly string[] = [
  ...namesOf('explicit'),
  ...namesOf('implicit'),
  ...namesOf('multistep'),
];

/** The panel's settings, SI units. */
export interface Settings extends SceneSettings {
  integrator: GpuIntegratorName;
  dt: number;
  substeps: number;
  solver: 'pcg' | 'multigrid' | 'cg';
  maxIterations: number;
  tolerance: number;
  rayleigh: number;
  wind: number;
  sphere: boolean;
  /** Weft's colliders in the flag and character scenes. */
  colliders: boolean;
  /** Implicit schemes: sticking contacts held inside the solve (option staticFriction). */
  staticFriction: boolean;
}

export function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

export const controls = element<HTMLFormElement>('controls');
export const input = (id: keyof Settings): HTMLInputElement | HTMLSelectElement => element(id);

export function isImplicit(name: IntegratorName): boolean {
  return INTEGRATORS[name].family === 'implicit';
}

/** What a link may set each control to: its menu's enabled options, its number input's range. */
export function linkRules(): Record<string, LinkRule> {
  const rules: Record<string, LinkRule> = {};
  for (const control of Array.from(
    controls.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[id], select[id]'),
  )) {
    if (control instanceof HTMLSelectElement) {
      rules[control.id] = { kind: 'choice', values: Array.from(control.options).filter((o) => !o.disabled).map((o) => o.value) }; // prettier-ignore
    } else if (control.type === 'checkbox') {
      rules[control.id] = { kind: 'flag' };
    } else {
      const bound = (text: string, none: number): number => (text === '' ? none : Number(text));
      rules[control.id] = { kind: 'number', min: bound(control.min, -Infinity), max: bound(control.max, Infinity), integer: control.step === '1' }; // prettier-ignore
    }
  }
  // The step and the CG tolerance as Weft takes them (h > 0; 0 < tolerance < 1); any size in range.
  rules['dt'] = { kind: 'number', min: 0, max: Infinity, minOpen: true };
  rules['tolerance'] = { kind: 'number', min: 0, max: 1, minOpen: true, maxOpen: true };
  rules['size'] = { kind: 'number', ...SIZE_RANGE, integer: true };
  return rules;
}

/** Selects `size` in the particles menu, adding it if the menu lacks it (a link's `size=48`). */
export function selectSize(size: string): void {
  const menu = input('size') as HTMLSelectElement;
  if (!Array.from(menu.options).some((o) => o.value === size)) {
    const after = Array.from(menu.options).find((o) => Number(o.value) > Number(size)) ?? null;
    menu.add(new Option(`${size} × ${size}`, size), after);
  }
  menu.value = size;
}

export function readSettings(): Settings {
  const number = (id: keyof Settings): number => Number(input(id).value);
  return {
    integrator: input('integrator').value as GpuIntegratorName,
    dt: number('dt'),
    substeps: Math.max(1, Math.round(number('substeps')) || 1),
    solver: input('solver').value as Settings['solver'],
    maxIterations: number('maxIterations'),
    tolerance: number('tolerance'),
    scene: input('scene').value as Settings['scene'],
    size: number('size'),
    pins: input('pins').value as Pins,
    structural: number('structural'),
    shear: number('shear'),
    bend: number('bend'),
    bending: number('bending'),
    selfCollision: number('selfCollision'),
    damping: number('damping'),
    rayleigh: number('rayleigh'),
    gravity: number('gravity'),
    wind: number('wind'),
    sphere: (input('sphere') as HTMLInputElement).checked,
    colliders: (input('colliders') as HTMLInputElement).checked,
    staticFriction: (input('staticFriction') as HTMLInputElement).checked,
  };
}

export function showStepHint(settings: Settings): void {
  const limit = explicitStepLimit(settings);
  const contacts = contactStepLimit(settings);
  element('stepHint').textContent =
    (isImplicit(settings.integrator)
      ? `Implicit: stable at large dt; CG iterations bound the cost. Explicit schemes would need dt ≲ ${limit.toPrecision(2)} s here.`
      : `Explicit: stable for dt ≲ ${limit.toPrecision(2)} s on this cloth (2/ω_max; explicit-euler only with enough damping); ${Math.ceil(FRAME_TIME / limit)}+ substeps per frame for real time.`) +
    (Number.isFinite(contacts) ? ` Weft's contacts keep this cloth whole at dt ≲ ${contacts.toPrecision(2)} s (scenes.ts contactStepLimit).` : ''); // prettier-ignore
  input('maxIterations').disabled = !isImplicit(settings.integrator);
  input('solver').disabled = !isImplicit(settings.integrator);
  input('tolerance').disabled = !isImplicit(settings.integrator);
  input('size').disabled = settings.scene === 'garment';
  input('shear').disabled = settings.scene === 'garment';
  input('pins').disabled = settings.scene === 'flag'; // pinned along its pole
  input('sphere').disabled = isLibraryScene(settings.scene);
  input('colliders').disabled = !isLibraryScene(settings.scene);
  input('staticFriction').disabled = !isLibraryScene(settings.scene) || !isImplicit(settings.integrator);
}

/**
 * In the character scene, a step no larger than its contacts allow (contactStepLimit), and with
 * `substeps`, the substeps for real time; a smaller step stays.
 */
export function fitContactStep(substeps: boolean): void {
  const settings = readSettings();
  const limit = contactStepLimit(settings);
  if (!(settings.dt > 1.001 * limit)) return;
  const dt = Number(limit.toPrecision(3));
  input('dt').value = String(dt);
  if (substeps) input('substeps').value = String(Math.min(1000, Math.ceil(FRAME_TIME / dt)));
}

/** On a change between explicit and implicit schemes, a step and substeps that suit the new one. */
export function suggestStep(previous: GpuIntegratorName): void {
  const settings = readSettings();
  if (isImplicit(previous) === isImplicit(settings.integrator)) return;
  let dt = 1 / 240;
  if (!isImplicit(settings.integrator)) {
    dt = Number((0.8 * explicitStepLimit(settings)).toPrecision(2));
  }
  input('dt').value = String(dt);
  input('substeps').value = String(Math.min(1000, Math.max(1, Math.round(FRAME_TIME / dt))));
}

export function simulationOptions(
  settings: Settings,
  device: GPUDevice,
): FixedStepSimulationOptions & { backend: 'webgpu' } {
  return {
    backend: 'webgpu',
    device,
    integrator: settings.integrator,
    dt: settings.dt,
    rayleighMass: settings.rayleigh,
    ...(isImplicit(settings.integrator)
      ? { solver: settings.solver, maxIterations: settings.maxIterations, tolerance: settings.tolerance, staticFriction: settings.staticFriction, checkEvery: 0 } // prettier-ignore
      : {}),
  };
}

/** Fills the integrator menu: every integrator Weft has, those the demo cannot run disabled. */
export function fillIntegratorMenu(): void {
  // Every integrator Weft has; the adaptive-step and CPU-only ones are listed but not selectable.
  const groups = [
    ['explicit', namesOf('explicit')],
    ['implicit', namesOf('implicit')],
    ['multistep', namesOf('multistep')],
    ['not in this demo: adaptive-step', INTEGRATOR_NAMES.filter((n) => !GPU_INTEGRATOR_NAMES.includes(n))],
  ] as const;
  for (const [label, names] of groups) {
    if (names.length === 0) continue;
    const group = document.createElement('optgroup');
    group.label = label;
    for (const name of names) {
      const option = new Option(`${name} (order ${INTEGRATORS[name].order})`, name);
      option.disabled = !GPU_INTEGRATOR_NAMES.includes(name);
      group.append(option);
    }
    input('integrator').append(group);
  }
  input('integrator').value = 'implicit-euler';
}

/** What the page took from its link: the values, what it refused, and every control's default. */
export interface AppliedLink {
  readonly link: ReturnType<typeof readLink>;
  /** What the page says about the link until a control changes: what it did not apply. */
  readonly notice: string | null;
  /** Every control's default, for a link whose settings Weft refuses. */
  readonly defaults: (readonly [HTMLInputElement | HTMLSelectElement, string | boolean])[];
}

/**
 * Sets the controls from the URL (?size=32&integrator=rk4&sphere=0 …): a value a control does not
 * allow is not applied, and the notice names it (readLink); then the step that suits the scheme.
 */
export function applyLink(): AppliedLink {
  // Every control's default, for a link whose settings Weft refuses (below).
  const allControls = Array.from(controls.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[id], select[id]')); // prettier-ignore
  const defaults = allControls.map((c) => [c, c instanceof HTMLInputElement && c.type === 'checkbox' ? c.checked : c.value] as const); // prettier-ignore
  // Every control can be set from the URL: ?size=32&integrator=rk4&sphere=0 … A value the control
  // does not allow is not applied, and the notice names it (readLink).
  const link = readLink(new URLSearchParams(location.search), linkRules());
  for (const [id, value] of link.values) {
    if (id === 'size') selectSize(value as string);
    else if (typeof value === 'boolean') (input(id as keyof Settings) as HTMLInputElement).checked = value;
    else input(id as keyof Settings).value = value;
  }
  /** What the page says about the link until a control changes: what it did not apply. */
  const linkNotice: string | null =
    link.problems.length > 0
      ? `Not applied from the link (the defaults are used): ${link.problems.join('; ')}.`
      : null;
  // The skirt hangs from its waist unless the URL says otherwise.
  if (link.values.get('scene') === 'garment' && !link.values.has('pins')) input('pins').value = 'top-edge';
  // An explicit integrator asked for in the URL without a dt gets a stable one (half the
  // explicit limit) and the substeps for real time, not the implicit default's 1/240 s.
  if (
    link.values.has('integrator') &&
    !link.values.has('dt') &&
    !isImplicit(input('integrator').value as IntegratorName)
  ) {
    const dt = explicitStepLimit(readSettings()) / 2;
    input('dt').value = dt.toPrecision(3);
    if (!link.values.has('substeps'))
      input('substeps').value = String(Math.min(1000, Math.ceil(FRAME_TIME / dt)));
  }
  if (!link.values.has('dt')) fitContactStep(!link.values.has('substeps'));
  return { link, notice: linkNotice, defaults };
}
