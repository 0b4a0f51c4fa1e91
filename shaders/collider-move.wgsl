// Kinematic colliders' motion over one step, one thread per collider (CPU mirror:
// CpuContacts.move, src/backends/cpu/contacts.ts): p += h u_p, q += h u_q, the velocities set by
// setColliderPose for the call (src/backends/common/collider-poses.ts; 0 for a collider at rest).

struct MoveOp {
  h: f32,  // the step, s
}

@group(0) @binding(5) var<uniform> op: MoveOp;

@compute @workgroup_size(workgroupSize)
fn colliderMoveMain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let k = threadIndex(id, groups);
  if (k >= colliderCount) {
    return;
  }
  var c = colliders[k];
  c.p += op.h * c.velocityP;
  c.q += op.h * c.velocityQ;
  colliders[k] = c;
}
