// The aerodynamic force of each triangle, one thread per triangle (CPU mirror: triangleAeroForce,
// src/model/wind.ts, which gives the model and its sources): with the unit normal n, area A, the
// mean velocity v̄ of the corners and the wind w at the centroid, u = w − v̄, u_n = u·n,
//   drag f_D = ½ ρ C_d A |u_n| u_n n,   lift f_L = ½ ρ C_l A (u_n / |u|) (|u|² n − u_n u),
// and w(x, t) = W + a Σ_i e_i sin(k d_i·x − r_i ω t + φ_i) at the op's stage time
// t = t₀ + (steps taken + c) h (t₀ the clock's origin, c the stage: src/integrators/wind-programs.ts;
// t₀ is folded into the phases on the CPU in float64, φ_i − r_i ω t₀ mod 2π (aero-ops.ts): each
// adaptive attempt's t_n, and on fixed-step programs each call's start (the clock restarts at 0),
// so a long run's time does not round in float32 here;
// the sine is accurateSin, not WGSL's sin(), so that every adapter agrees with the CPU's Math.sin).

struct WindParams {
  velocity: vec3<f32>,     // W, m/s
  halfDrag: f32,           // ½ ρ C_d, kg/m³
  direction0: vec3<f32>,   // d₁ (unit)
  halfLift: f32,           // ½ ρ C_l, kg/m³
  direction1: vec3<f32>,   // d₂
  turbulence: f32,         // a, m/s
  direction2: vec3<f32>,   // d₃
  wavenumber: f32,         // k = 2π/λ, 1/m
  rates: vec3<f32>,        // r_i: each wave's frequency factor
  frequency: f32,          // ω = 2π/T, 1/s
  phases: vec3<f32>,       // φ_i
  h: f32,                  // the step, s
  stage: f32,              // c: this op's evaluation is at t_n + c h
}

override triangleCount: u32 = 0u;

@group(0) @binding(4) var<uniform> wind: WindParams;
@group(0) @binding(5) var<storage, read> triangles: array<u32>;                  // three particles each
@group(0) @binding(6) var<storage, read_write> triangleForces: array<vec4<f32>>;  // f_D + f_L, N
@group(0) @binding(7) var<storage, read> windClock: array<u32>;                  // [0]: steps taken

// sin(x) to ~1e-7 absolute, the same on every adapter (WGSL's sin() need only be within 2⁻¹¹ on
// [−π, π]): x reduced by 2π in two parts (Cody–Waite), folded onto [−π/2, π/2], then Taylor to x¹¹.
fn accurateSin(x: f32) -> f32 {
  let k = round(x * 0.15915494309189535);
  var r = (x - k * 6.28125) - k * 0.0019353071795864769;
  if (r > 1.5707963267948966) {
    r = 3.141592653589793 - r;
  } else if (r < -1.5707963267948966) {
    r = -3.141592653589793 - r;
  }
  let r2 = r * r;
  return r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0 - r2 / 39916800.0)))));
}

fn windAt(x: vec3<f32>, t: f32) -> vec3<f32> {
  if (wind.turbulence == 0.0) {
    return wind.velocity;
  }
  let k = wind.wavenumber;
  let phase = vec3<f32>(k * dot(wind.direction0, x), k * dot(wind.direction1, x), k * dot(wind.direction2, x));
  let arg = phase - wind.rates * (wind.frequency * t) + wind.phases;
  return wind.velocity + wind.turbulence * vec3<f32>(accurateSin(arg.x), accurateSin(arg.y), accurateSin(arg.z));
}

@compute @workgroup_size(workgroupSize)
fn aeroTrianglesMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let t = threadIndex(id, groups);
  if (t >= triangleCount) {
    return;
  }
  let a = triangles[3u * t];
  let b = triangles[3u * t + 1u];
  let c = triangles[3u * t + 2u];
  let x0 = loadVector(xRef, a);
  let x1 = loadVector(xRef, b);
  let x2 = loadVector(xRef, c);
  let normal = cross(x1 - x0, x2 - x0);
  let twice = length(normal);  // 2A
  var force = vec3<f32>(0.0);
  if (twice > 0.0) {
    let n = normal / twice;
    let mean = (loadVector(vRef, a) + loadVector(vRef, b) + loadVector(vRef, c)) / 3.0;
    let time = (f32(windClock[0]) + wind.stage) * wind.h;
    let u = windAt((x0 + x1 + x2) / 3.0, time) - mean;
    let un = dot(u, n);
    let speed2 = dot(u, u);
    let area = 0.5 * twice;
    let drag = wind.halfDrag * area * abs(un) * un;
    let lift = select(0.0, wind.halfLift * area * un / sqrt(speed2), speed2 > 0.0);
    force = drag * n + lift * (speed2 * n - un * u);
  }
  triangleForces[t] = vec4<f32>(force, 0.0);
}
