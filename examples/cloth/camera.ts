/** An orbit camera (drag to orbit, wheel or pinch to zoom) and the few 4×4 matrices it needs. */

type Vec3 = readonly [number, number, number];

/** Column-major 4×4 matrices, as WGSL's mat4x4<f32> stores them. */
export type Mat4 = Float32Array<ArrayBuffer>;

/** Perspective projection onto WebGPU's clip space (depth in [0, 1]); fovY in radians. */
export function perspective(fovY: number, aspect: number, near: number, far: number): Mat4 {
  const f = 1 / Math.tan(fovY / 2);
  const m = new Float32Array(16);
  m[0] = f / aspect;
  m[5] = f;
  m[10] = far / (near - far);
  m[11] = -1;
  m[14] = (near * far) / (near - far);
  return m;
}

/** View matrix of a camera at `eye` looking at `target`, y up. */
export function lookAt(eye: Vec3, target: Vec3): Mat4 {
  const normalize = (v: Vec3): Vec3 => {
    const l = Math.hypot(...v);
    return [v[0] / l, v[1] / l, v[2] / l];
  };
  const cross = (a: Vec3, b: Vec3): Vec3 => [
    a[1] * b[2] - a[2] * b[1],
    a[2] * b[0] - a[0] * b[2],
    a[0] * b[1] - a[1] * b[0],
  ];
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = normalize([eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]]);
  const x = normalize(cross([0, 1, 0], z));
  const y = cross(z, x);
  // prettier-ignore
  return new Float32Array([
    x[0], y[0], z[0], 0,
    x[1], y[1], z[1], 0,
    x[2], y[2], z[2], 0,
    -dot(x, eye), -dot(y, eye), -dot(z, eye), 1,
  ]);
}

export function multiply(a: Mat4, b: Mat4): Mat4 {
  const m = new Float32Array(16);
  for (let column = 0; column < 4; column++)
    for (let row = 0; row < 4; row++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += a[k * 4 + row]! * b[column * 4 + k]!;
      m[column * 4 + row] = sum;
    }
  return m;
}

/** Spherical coordinates around a target; pointer drags orbit, the wheel (or a pinch) zooms. */
export class OrbitCamera {
  /** Radians about +y, 0 looking along −z. */
  azimuth: number;
  /** Radians above the horizon, within ±1.5. */
  elevation: number;
  /** m from the target. */
  distance: number;
  target: Vec3;

  constructor(options: { azimuth: number; elevation: number; distance: number; target: Vec3 }) {
    this.azimuth = options.azimuth;
    this.elevation = options.elevation;
    this.distance = options.distance;
    this.target = options.target;
  }

  get eye(): Vec3 {
    const c = Math.cos(this.elevation);
    return [
      this.target[0] + this.distance * c * Math.sin(this.azimuth),
      this.target[1] + this.distance * Math.sin(this.elevation),
      this.target[2] + this.distance * c * Math.cos(this.azimuth),
    ];
  }

  viewProjection(aspect: number): Mat4 {
    return multiply(perspective(Math.PI / 4, aspect, 0.05, 100), lookAt(this.eye, this.target));
  }

  /** Listens on `element` for drags (orbit) and wheel or two-finger pinches (zoom). */
  attach(element: HTMLElement): void {
    const pointers = new Map<number, { x: number; y: number }>();
    const spread = (): number => {
      const [a, b] = [...pointers.values()];
      return a && b ? Math.hypot(a.x - b.x, a.y - b.y) : 0;
    };
    element.style.touchAction = 'none';
    element.addEventListener('pointerdown', (event) => {
      element.setPointerCapture(event.pointerId);
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    });
    element.addEventListener('pointermove', (event) => {
      const last = pointers.get(event.pointerId);
      if (!last) return;
      const before = spread();
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.size === 2) {
        const after = spread();
        if (before > 0 && after > 0) this.zoom(before / after);
        return;
      }
      this.azimuth -= (event.clientX - last.x) * 0.008;
      this.elevation = Math.min(1.5, Math.max(-0.2, this.elevation + (event.clientY - last.y) * 0.008));
    });
    const release = (event: PointerEvent): void => void pointers.delete(event.pointerId);
    element.addEventListener('pointerup', release);
    element.addEventListener('pointercancel', release);
    element.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        this.zoom(Math.exp(event.deltaY * 0.001));
      },
      { passive: false },
    );
  }

  private zoom(factor: number): void {
    this.distance = Math.min(30, Math.max(1, this.distance * factor));
  }
}
