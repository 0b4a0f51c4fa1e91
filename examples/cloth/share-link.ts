/**
 * The demo's share link: the page's URL with every control's value and the camera, which the page
 * reads back on load (`?scene=garment&integrator=rk4&dt=0.0002&…&camera=330,28,7.2`), so that the
 * link opens the same view.
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
