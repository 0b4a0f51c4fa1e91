// Per-vertex normals of the cloth grid, from the solver's positions, one thread per particle:
//   n(i, j) = normalize((x(i, j+1) − x(i, j−1)) × (x(i+1, j) − x(i−1, j)))
// with one-sided differences on the border. Particle (i, j) has index j·nx + i (Weft's buildCloth),
// so for the horizontal cloth (i along x, j along z) the normal starts as +y.
// It also raises flags when a position is NaN or Inf, or when the cloth is blowing up (an explicit
// scheme beyond its stable step passes through huge finite values first): a particle farther than
// `bound` from the origin, or an edge to a neighbour longer than `maxEdge`. The render pass then
// draws nothing of the cloth (no NaNs, and no screen-filling triangles either); the page reads the
// flags back twice a second and stops stepping.

struct Grid {
  width: u32,   // nx, particles along i
  height: u32,  // ny, particles along j
  bound: f32,   // m: a position farther than this from the origin has left the scene
  maxEdge: f32, // m: an edge (i, j)–(i+1, j) or (i, j)–(i, j+1) longer than this is torn apart
}

override workgroupSize: u32 = 64;

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;       // the solver's, xyz m
@group(0) @binding(2) var<storage, read_write> normals: array<vec4<f32>>;   // unit normal, w = 0
@group(0) @binding(3) var<storage, read_write> health: array<atomic<u32>>;  // [0]: NOT_FINITE | BLOWN_UP

const NOT_FINITE = 1u;
const BLOWN_UP = 2u;

// WGSL lets compilers assume floats are finite (x != x may fold to false), so test the exponent bits.
fn isFinite3(v: vec3<f32>) -> bool {
  let exponent = bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u);
  return all(exponent != vec3<u32>(0x7f800000u));
}

@compute @workgroup_size(workgroupSize)
fn normalsMain(@builtin(global_invocation_id) id: vec3<u32>) {
  let index = id.x;
  let nx = grid.width;
  let ny = grid.height;
  if (index >= nx * ny) {
    return;
  }
  let i = index % nx;
  let j = index / nx;
  let p = positions[index].xyz;
  let left = positions[j * nx + max(i, 1u) - 1u].xyz;
  let right = positions[j * nx + min(i + 1u, nx - 1u)].xyz;
  let down = positions[(max(j, 1u) - 1u) * nx + i].xyz;
  let up = positions[min(j + 1u, ny - 1u) * nx + i].xyz;
  if (!isFinite3(p)) {
    atomicOr(&health[0], NOT_FINITE);
  } else if (any(abs(p) > vec3<f32>(grid.bound)) || max(length(right - p), length(up - p)) > grid.maxEdge) {
    atomicOr(&health[0], BLOWN_UP);
  }
  let n = cross(up - down, right - left);
  let size = length(n);
  normals[index] = vec4<f32>(select(vec3<f32>(0.0, 1.0, 0.0), n / size, size > 1e-20), 0.0);
}
