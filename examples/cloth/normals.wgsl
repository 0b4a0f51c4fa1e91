// Per-vertex normals of the cloth — any triangle mesh: a builder's grid or a garment read from OBJ —
// from the solver's positions, one thread per particle:
//   n(i) = normalize(Σ over the triangles (a, b, c) that have i of (x_b − x_a) × (x_c − x_a))
// (area-weighted: each cross product is twice its triangle's area), so the normal follows the
// triangles' winding. The triangles of each vertex come from a CSR list built on the host.
// It also raises flags when a position is NaN or Inf, or when the cloth is blowing up (an explicit
// scheme beyond its stable step passes through huge finite values first): a particle farther than
// `bound` from the origin, or an edge of one of its triangles longer than `maxEdge`. The render
// pass then draws nothing of the cloth (no NaNs, and no screen-filling triangles either); the
// page reads the flags back twice a second and stops stepping.

struct Mesh {
  vertexCount: u32,
  bound: f32,   // m: a position farther than this from the origin has left the scene
  maxEdge: f32, // m: an edge longer than this is torn apart
}

override workgroupSize: u32 = 64;

@group(0) @binding(0) var<uniform> mesh: Mesh;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;       // the solver's, xyz m
@group(0) @binding(2) var<storage, read_write> normals: array<vec4<f32>>;   // unit normal, w = 0
@group(0) @binding(3) var<storage, read_write> health: array<atomic<u32>>;  // [0]: NOT_FINITE | BLOWN_UP
@group(0) @binding(4) var<storage, read> triangles: array<u32>;             // a, b, c per triangle
@group(0) @binding(5) var<storage, read> vertexOffsets: array<u32>;         // [n + 1] into vertexTriangles
@group(0) @binding(6) var<storage, read> vertexTriangles: array<u32>;       // the triangles of each vertex

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
  if (index >= mesh.vertexCount) {
    return;
  }
  let p = positions[index].xyz;
  var n = vec3<f32>(0.0);
  var longest = 0.0;
  for (var k = vertexOffsets[index]; k < vertexOffsets[index + 1u]; k++) {
    let t = vertexTriangles[k];
    let a = positions[triangles[3u * t]].xyz;
    let b = positions[triangles[3u * t + 1u]].xyz;
    let c = positions[triangles[3u * t + 2u]].xyz;
    n += cross(b - a, c - a);
    longest = max(longest, max(length(b - a), max(length(c - b), length(a - c))));
  }
  if (!isFinite3(p)) {
    atomicOr(&health[0], NOT_FINITE);
  } else if (any(abs(p) > vec3<f32>(mesh.bound)) || longest > mesh.maxEdge) {
    atomicOr(&health[0], BLOWN_UP);
  }
  let size = length(n);
  normals[index] = vec4<f32>(select(vec3<f32>(0.0, 1.0, 0.0), n / size, size > 1e-20), 0.0);
}
