// Drawing Weft's capsule and sphere colliders (examples/cloth/collider-view.ts): a unit sphere,
// instanced, each instance a capsule (a, b, radius) — a sphere when a = b. The upper hemisphere
// (local y ≥ 0) is centred on b, the lower on a, in a frame whose y axis is b − a; the band of
// triangles across the equator becomes the cylinder. Colours are linear, display gamma applied.

struct View {
  viewProjection: mat4x4<f32>,
  eye: vec3<f32>,             // camera position, m
  lightDirection: vec3<f32>,  // unit vector towards the light
}

@group(0) @binding(0) var<uniform> view: View;

struct Out {
  @builtin(position) clip: vec4<f32>,
  @location(0) world: vec3<f32>,
  @location(1) normal: vec3<f32>,
}

@vertex
fn capsuleVertex(
  @location(0) position: vec3<f32>,  // on the unit sphere
  @location(1) a: vec4<f32>,         // xyz: end a, m; w: radius, m
  @location(2) b: vec4<f32>,         // xyz: end b, m
) -> Out {
  let axis = b.xyz - a.xyz;
  let length = max(length(axis), 1e-6);
  let y = select(vec3<f32>(0.0, 1.0, 0.0), axis / length, length > 1e-5);
  let helper = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 0.0, 1.0), abs(y.x) > 0.9);
  let x = normalize(cross(helper, y));
  let z = cross(x, y);
  let normal = position.x * x + position.y * y + position.z * z;
  let centre = select(a.xyz, b.xyz, position.y >= 0.0);
  var out: Out;
  out.world = centre + a.w * normal;
  out.normal = normal;
  out.clip = view.viewProjection * vec4<f32>(out.world, 1.0);
  return out;
}

@fragment
fn capsuleFragment(in: Out) -> @location(0) vec4<f32> {
  let n = normalize(in.normal);
  let l = view.lightDirection;
  let toEye = normalize(view.eye - in.world);
  let sky = mix(vec3<f32>(0.10, 0.09, 0.08), vec3<f32>(0.30, 0.33, 0.40), 0.5 + 0.5 * n.y);
  let specular = pow(max(dot(n, normalize(l + toEye)), 0.0), 48.0) * 0.25;
  let linear = vec3<f32>(0.30, 0.40, 0.36) * (sky + 0.95 * max(dot(n, l), 0.0)) + vec3<f32>(specular);
  return vec4<f32>(pow(linear, vec3<f32>(1.0 / 2.2)), 1.0);
}
