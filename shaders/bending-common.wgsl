// Dihedral bending (CPU mirror: src/backends/cpu/bending.ts; the model and its sources:
// src/model/bending.ts), shared by the bending kernels: E = Σ_h k c (θ − θ₀)², the force on
// particle j of hinge h F_h ∇_jθ with F_h = −(2 k c (θ − θ₀) + d c θ̇). Per-hinge arrays hold four
// entries per hinge, 4 h + corner, the same index as the hinges' CSR (hingeIncidence), so a
// particle's gather reads its entries directly.

// One hinge: an interior edge and the two vertices opposite it, with its material.
struct Hinge {
  particles: vec4<u32>,  // x₀, x₁ (the edge), x₂ (first triangle's opposite), x₃ (second's)
  restAngle: f32,        // θ₀, rad
  stiffness: f32,        // 2 k c, J
  damping: f32,          // d c, J·s
  pad: f32,
}

override hingeCount: u32 = 0u;  // h

// The hinge passes run on a per-particle grid (so that Newton loops and linear solves gate them
// with the per-particle counts), each thread taking hinges t, t + T, t + 2T, … (T threads).
fn hingeStride(groups: vec3<u32>) -> u32 {
  return groups.x * groups.y * workgroupSize;
}
