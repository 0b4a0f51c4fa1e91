/**
 * The demo's share link: the page's URL with every control's value and the camera, which the page
 * reads back on load (`?scene=garment&integrator=rk4&dt=0.0002&…&camera=330,28,7.2`), so that the
 * link opens the same view. A link written by hand may hold anything: readLink checks each
 * parameter against what its control allows, and names every one it cannot apply.
 */

const DEGREES = Math.PI / 180;

/** The orbit camera's spherical coordinates: radians, radians, m. */
export interface CameraView {
  azimuth: number;
  elevation: number;
  distance: number;
}

/** `camera=azimuth,elevation,distance` in degrees, degrees, m; absent parts take `fallback`'s. */
export function parseCamera(text: string | null, fallback: CameraView): CameraView {
  const [azimuth, elevation, distance] = (text ?? '').split(',').map((part) => (part.trim() === '' ? NaN : Number(part))); // prettier-ignore
  const pick = (value: number | undefined, other: number): number =>
    value !== undefined && Number.isFinite(value) ? value : other;
  return {
    azimuth: pick((azimuth ?? NaN) * DEGREES, fallback.azimuth),
    elevation: pick((elevation ?? NaN) * DEGREES, fallback.elevation),
    distance: pick(distance, fallback.distance),
  };
}

/**
 * The camera's range in a link: elevation, degrees (the orbit's −0.2 to 1.5 rad, OrbitCamera, as
 * the link's 0.1° rounds them), and distance, m (the zoom's 1 to 30 m).
 */
export const CAMERA_LIMITS = { elevation: [-11.5, 86], distance: [1, 30] } as const;

/** What a link may set a control to. */
export type LinkRule =
  /** One of these values (a menu's enabled options). */
  | { kind: 'choice'; values: readonly string[] }
  /** A number within [min, max] (open at an end whose `minOpen`/`maxOpen` is set), an integer if `integer`. */
  | { kind: 'number'; min: number; max: number; minOpen?: boolean; maxOpen?: boolean; integer?: boolean }
  /** A checkbox: 1 or 0 (as shareUrl writes it), true or false. */
  | { kind: 'flag' };

/** A link's parameters as the page can apply them. */
export interface LinkReading {
  /**
   * The value of each parameter that its rule allows, by name: a choice's text, a number's text
   * as JavaScript writes the number (`4.8e1` → `48`), a flag's boolean.
   */
  values: Map<string, string | boolean>;
  /** `camera=`'s text if it is valid (parseCamera reads it), else null. */
  camera: string | null;
  /** One line per parameter not applied: `name=value: what is allowed`, or an unknown name. */
  problems: string[];
}

/** What `rule` allows, in words. */
export function allowedText(rule: LinkRule): string {
  if (rule.kind === 'flag') return '1 or 0';
  if (rule.kind === 'choice') return `one of ${rule.values.join(', ')}`;
  if (rule.integer && Number.isFinite(rule.min) && Number.isFinite(rule.max))
    return `an integer from ${rule.min} to ${rule.max}`;
  const bounds = [
    Number.isFinite(rule.min) ? `${rule.minOpen ? '>' : '≥'} ${rule.min}` : '',
    Number.isFinite(rule.max) ? `${rule.maxOpen ? '<' : '≤'} ${rule.max}` : '',
  ].filter((b) => b !== '');
  return `${rule.integer ? 'an integer' : 'a number'}${bounds.length > 0 ? ` ${bounds.join(' and ')}` : ''}`;
}

/** `text` as a notice quotes it: at most 40 characters. */
const quoted = (text: string): string => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

/** `text` as a finite number, or null (empty text is not 0). */
function finite(text: string): number | null {
  const x = text.trim() === '' ? NaN : Number(text);
  return Number.isFinite(x) ? x : null;
}

/** The value `rule` makes of `text`, or null if it allows none. */
function applyRule(rule: LinkRule, text: string): string | boolean | null {
  if (rule.kind === 'flag') return ['1', 'true'].includes(text) ? true : ['0', 'false'].includes(text) ? false : null; // prettier-ignore
  if (rule.kind === 'choice') return rule.values.includes(text) ? text : null;
  const x = finite(text);
  if (x === null || (rule.integer && !Number.isInteger(x))) return null;
  if (x < rule.min || (rule.minOpen && x === rule.min) || x > rule.max || (rule.maxOpen && x === rule.max)) return null; // prettier-ignore
  return String(x);
}

/** Whether `camera=`'s text is three numbers (or fewer, the rest left to the default) in range. */
function cameraAllowed(text: string): boolean {
  const parts = text.split(',');
  if (parts.length > 3) return false;
  const limits = [[-Infinity, Infinity], CAMERA_LIMITS.elevation, CAMERA_LIMITS.distance] as const;
  return parts.every((part, k) => {
    if (part.trim() === '' && parts.length > 1) return true; // `camera=,,5`: the default's angles
    const x = finite(part);
    return x !== null && x >= limits[k]![0] && x <= limits[k]![1];
  });
}

/**
 * Reads a link's parameters: each name must have a rule in `rules` (or be `camera`), and its value
 * be one the rule allows; the last of repeated names counts. Nothing wrong stops the page: what is
 * not applied is listed in `problems`, and its control keeps its default.
 */
export function readLink(params: URLSearchParams, rules: Readonly<Record<string, LinkRule>>): LinkReading {
  const reading: LinkReading = { values: new Map(), camera: null, problems: [] };
  const last = new Map(params);
  for (const [name, text] of last) {
    if (name === 'camera') {
      if (cameraAllowed(text)) reading.camera = text;
      else {
        const [elevation, distance] = [CAMERA_LIMITS.elevation, CAMERA_LIMITS.distance];
        reading.problems.push(`camera=${quoted(text)}: azimuth,elevation,distance — degrees, ${elevation[0]} to ${elevation[1]} degrees, ${distance[0]} to ${distance[1]} m`); // prettier-ignore
      }
      continue;
    }
    const rule = Object.hasOwn(rules, name) ? rules[name] : undefined;
    if (!rule) {
      reading.problems.push(`${quoted(name)}: not a parameter of this page (it reads ${[...Object.keys(rules), 'camera'].join(', ')})`); // prettier-ignore
      continue;
    }
    const value = applyRule(rule, text);
    if (value === null) reading.problems.push(`${name}=${quoted(text)}: ${allowedText(rule)}`);
    else reading.values.set(name, value);
  }
  return reading;
}

/** The camera as `camera=` writes it: 0.1° and 1 cm, enough to see the same picture. */
export function cameraText(view: CameraView): string {
  const round = (x: number, digits: number): string => String(Number(x.toFixed(digits)));
  return [round(view.azimuth / DEGREES, 1), round(view.elevation / DEGREES, 1), round(view.distance, 2)].join(','); // prettier-ignore
}

/** The page's address with the value of every control of `controls` that has an id, and the camera. */
export function shareUrl(controls: HTMLFormElement, camera: CameraView): URL {
  const url = new URL(location.href);
  url.search = '';
  const inputs = controls.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[id], select[id]');
  for (const control of Array.from(inputs)) {
    const checkbox = control instanceof HTMLInputElement && control.type === 'checkbox';
    url.searchParams.set(control.id, checkbox ? (control.checked ? '1' : '0') : control.value);
  }
  url.searchParams.set('camera', cameraText(camera));
  return url;
}

/**
 * Puts the link in the address bar (no reload) and copies it where the browser allows; `button`
 * says which was done for two seconds.
 */
export async function shareView(button: HTMLButtonElement, url: URL): Promise<void> {
  history.replaceState(null, '', url);
  const label = (button.dataset['label'] ??= button.textContent.trim());
  let copied = false;
  try {
    await navigator.clipboard.writeText(url.href);
    copied = true;
  } catch {
    // No clipboard (an insecure origin, or permission refused): the address bar has the link.
  }
  button.textContent = copied ? 'Link copied' : 'Link in the address bar';
  setTimeout(() => (button.textContent = label), 2000);
}
