// Drawing the demo: the cloth straight from the solver's position buffer (vertex buffer 0) with the
// normals of normals.wgsl (vertex buffer 1) and a woven pattern's coordinates (vertex buffer 2), and
// a scene mesh (floor and sphere). Colours are
// linear; the canvas is not sRGB, so the fragment shaders apply the display gamma themselves.

struct Frame {
  viewProjection: mat4x4<f32>,
  eye: vec3<f32>,             // camera position, m
  lightDirection: vec3<f32>,  // unit vector towards the light
  sphereCenter: vec3<f32>,    // m
  sphereRadius: f32,          // m as drawn; 0 hides the sphere
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> health: array<u32>;  // [0] ≠ 0: a position is NaN, Inf or far out (normals.wgsl)

fn shade(albedo: vec3<f32>, normal: vec3<f32>, world: vec3<f32>, shininess: f32) -> vec4<f32> {
  let toEye = normalize(frame.eye - world);
  // Two-sided: light the side that faces the camera.
  let n = select(-normal, normal, dot(normal, toEye) >= 0.0);
  let l = frame.lightDirection;
  let sky = mix(vec3<f32>(0.10, 0.09, 0.08), vec3<f32>(0.30, 0.33, 0.40), 0.5 + 0.5 * n.y);
  let diffuse = max(dot(n, l), 0.0);
  let specular = pow(max(dot(n, normalize(l + toEye)), 0.0), shininess) * 0.25;
  let linear = albedo * (sky + 0.95 * diffuse) + vec3<f32>(specular);
  return vec4<f32>(pow(linear, vec3<f32>(1.0 / 2.2)), 1.0);
}

struct ClothVertex {
  @builtin(position) clip: vec4<f32>,
  @location(0) world: vec3<f32>,
  @location(1) normal: vec3<f32>,
  @location(2) pattern: vec3<f32>,
}

@vertex
fn clothVertex(
  @location(0) position: vec4<f32>,
  @location(1) normal: vec4<f32>,
  @location(2) pattern: vec3<f32>,
) -> ClothVertex {
  var out: ClothVertex;
  // A diverged state is never drawn: every vertex lands on one point outside the view.
  if (health[0] != 0u) {
    out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    return out;
  }
  out.clip = frame.viewProjection * vec4<f32>(position.xyz, 1.0);
  out.world = position.xyz;
  out.normal = normal.xyz;
  out.pattern = pattern;
  return out;
}

@fragment
fn clothFragment(in: ClothVertex) -> @location(0) vec4<f32> {
  // A woven look: checks of unit size in the pattern's coordinates (fixed to the material: a grid's
  // are 24 across it), the front (normal towards the camera) red, the back darker.
  let cell = vec3<i32>(floor(in.pattern));
  let check = f32((cell.x + cell.y + cell.z) & 1);
  let front = dot(in.normal, frame.eye - in.world) >= 0.0;
  let base = select(vec3<f32>(0.42, 0.05, 0.03), vec3<f32>(0.70, 0.10, 0.04), front);
  return shade(base * (0.82 + 0.18 * check), normalize(in.normal), in.world, 24.0);
}

struct SceneVertex {
  @builtin(position) clip: vec4<f32>,
  @location(0) world: vec3<f32>,
  @location(1) normal: vec3<f32>,
  @location(2) @interpolate(flat) kind: u32,
}

// kind 0: the floor (positions in m); kind 1: the unit sphere, placed by the Frame.
@vertex
fn sceneVertex(
  @location(0) position: vec3<f32>,
  @location(1) normal: vec3<f32>,
  @location(2) kind: u32,
) -> SceneVertex {
  var out: SceneVertex;
  var world = position;
  if (kind == 1u) {
    world = frame.sphereCenter + frame.sphereRadius * position;
  }
  out.clip = frame.viewProjection * vec4<f32>(world, 1.0);
  out.world = world;
  out.normal = normal;
  out.kind = kind;
  return out;
}

@fragment
fn sceneFragment(in: SceneVertex) -> @location(0) vec4<f32> {
  if (in.kind == 1u) {
    return shade(vec3<f32>(0.32, 0.38, 0.48), normalize(in.normal), in.world, 48.0);
  }
  // The floor: 0.5 m tiles fading into the distance, a soft shadow under the sphere.
  let tile = vec2<i32>(floor(in.world.xz * 2.0));
  let check = f32((tile.x + tile.y) & 1);
  var albedo = vec3<f32>(0.16, 0.16, 0.17) + 0.03 * check;
  if (frame.sphereRadius > 0.0) {
    let reach = length(in.world.xz - frame.sphereCenter.xz) / (1.3 * frame.sphereRadius);
    albedo *= 0.45 + 0.55 * smoothstep(0.2, 1.0, reach);
  }
  let fade = exp(-0.04 * dot(in.world.xz, in.world.xz));
  let lit = shade(albedo, vec3<f32>(0.0, 1.0, 0.0), in.world, 8.0);
  return vec4<f32>(mix(BACKGROUND, lit.rgb, fade), 1.0);
}

// The clear colour, display-encoded (the renderer clears to the same value).
const BACKGROUND = vec3<f32>(0.075, 0.085, 0.105);
