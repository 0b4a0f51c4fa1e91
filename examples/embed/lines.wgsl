// The embedding example's pipeline: the cloth's grid as lines, read straight from Weft's position
// buffer (vertex buffer 0: vec4<f32> per particle, xyz in m, w = 1).

@group(0) @binding(0) var<uniform> viewProjection: mat4x4<f32>;

struct Line {
  @builtin(position) clip: vec4<f32>,
  @location(0) height: f32,  // y, m
}

@vertex
fn vertexMain(@location(0) position: vec4<f32>) -> Line {
  return Line(viewProjection * vec4<f32>(position.xyz, 1.0), position.y);
}

@fragment
fn fragmentMain(line: Line) -> @location(0) vec4<f32> {
  // Green, a little bluer where the cloth hangs lower.
  let low = clamp(-line.height, 0.0, 1.0);
  return vec4<f32>(0.3, 0.95 - 0.25 * low, 0.55 + 0.25 * low, 1.0);
}
