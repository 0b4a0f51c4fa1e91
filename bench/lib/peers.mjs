// Peers on the same grid and step: Jolt Physics soft bodies (jolt-physics, WASM) and Bullet soft
// bodies (ammojs-typed, WASM). Both are position-based; neither has Hooke springs, so each
// spring of the Weft model becomes an edge/link whose stiffness matches k as closely as the
// engine's own parameter allows:
//   Jolt: an XPBD edge constraint with compliance 1/k (m/N), which is exactly a spring of
//         stiffness k in the XPBD limit; one iteration per substep (mNumIterations = substeps,
//         and Jolt divides the frame into that many substeps, "Small Steps" XPBD).
//   Bullet: a PBD link; its only stiffness is kLST ∈ (0, 1], the fraction of a violation one
//         projection removes. It is set to w / (w + 1/(k h²)), w = 2/m, the fraction XPBD with
//         compliance 1/k removes on a link between two free particles, with one position
//         iteration per substep (stepSimulation with a fixed substep h).
// Quality figures and spring lists come from the same Weft model, so they are computed alike.
// Neither engine damps along a spring (the scenes' 10 N·s/m has no counterpart), and both are
// given no other damping, no collisions and no sleeping. Both are single-threaded builds.
import { createRequire } from 'node:module';
import { SCENES, blowUpNote, qualityOf, stepOf } from './protocol.mjs';
import { timeBoxed } from './timebox.mjs';

const require = createRequire(import.meta.url);
const versionOf = (name) => {
  try {
    return require(`${name}/package.json`).version;
  } catch {
    return 'not installed';
  }
};

/** Loads a peer's WASM module; throws an Error whose message says why it cannot run. */
const loaders = {
  jolt: async () => {
    // The wasm-compat build embeds its WASM (base64), so Node needs no file path or locateFile.
    const { default: initJolt } = await import('jolt-physics/wasm-compat');
    return initJolt();
  },
  ammo: async () => {
    // ammo.wasm.js is CommonJS; in Node it finds ammo.wasm.wasm beside itself (__dirname).
    // Called with an explicit `this`: a plain call throws in strict-mode ES modules.
    const { default: initAmmo } = await import('ammojs-typed/wasm');
    return initAmmo.call({});
  },
};

export const PEER_LABELS = {
  jolt: () => `Jolt ${versionOf('jolt-physics')} (WASM, XPBD soft body)`,
  ammo: () => `Bullet/ammo.js ${versionOf('ammojs-typed')} (WASM, PBD soft body)`,
};

const modules = new Map();
/** The peer's module, loaded once per process. */
export function loadPeer(peer) {
  if (!modules.has(peer)) modules.set(peer, loaders[peer]());
  return modules.get(peer);
}

/** One peer world holding the model's cloth: step one frame, read positions, free. */
function joltWorld(Jolt, model, scene) {
  const layers = new Jolt.ObjectLayerPairFilterTable(1);
  layers.EnableCollision(0, 0);
  const broadPhase = new Jolt.BroadPhaseLayerInterfaceTable(1, 1);
  broadPhase.MapObjectToBroadPhaseLayer(0, new Jolt.BroadPhaseLayer(0));
  const settings = new Jolt.JoltSettings();
  settings.mObjectLayerPairFilter = layers;
  settings.mBroadPhaseLayerInterface = broadPhase;
  settings.mObjectVsBroadPhaseLayerFilter = new Jolt.ObjectVsBroadPhaseLayerFilterTable(
    broadPhase,
    1,
    layers,
    1,
  );
  const jolt = new Jolt.JoltInterface(settings);
  Jolt.destroy(settings);
  const system = jolt.GetPhysicsSystem();
  const gravity = new Jolt.Vec3(...model.gravity);
  system.SetGravity(gravity);
  Jolt.destroy(gravity);

  const shared = new Jolt.SoftBodySharedSettings();
  const vertex = new Jolt.SoftBodySharedSettingsVertex();
  for (let i = 0; i < model.particleCount; i++) {
    vertex.mPosition.x = model.particlePositions[3 * i];
    vertex.mPosition.y = model.particlePositions[3 * i + 1];
    vertex.mPosition.z = model.particlePositions[3 * i + 2];
    vertex.mInvMass = model.particleInvMass[i];
    shared.mVertices.push_back(vertex);
  }
  Jolt.destroy(vertex);
  const edge = new Jolt.SoftBodySharedSettingsEdge(0, 0, 0);
  for (let s = 0; s < model.springCount; s++) {
    edge.set_mVertex(0, model.springIndices[2 * s]);
    edge.set_mVertex(1, model.springIndices[2 * s + 1]);
    edge.mCompliance = 1 / model.springStiffness[s];
    shared.mEdgeConstraints.push_back(edge);
  }
  Jolt.destroy(edge);
  shared.CalculateEdgeLengths(); // rest lengths = initial distances, as in the Weft model
  shared.Optimize(); // groups constraints for the solver; vertex order is unchanged

  const origin = new Jolt.RVec3(0, 0, 0);
  const creation = new Jolt.SoftBodyCreationSettings(shared, origin, Jolt.Quat.prototype.sIdentity(), 0);
  creation.mNumIterations = scene.stepsPerFrame;
  creation.mLinearDamping = 0;
  creation.mUpdatePosition = false; // vertices stay in world space (the body never moves)
  creation.mAllowSleeping = false;
  creation.mVertexRadius = 0;
  creation.mGravityFactor = 1;
  const bodies = system.GetBodyInterface();
  const body = bodies.CreateSoftBody(creation);
  Jolt.destroy(creation);
  Jolt.destroy(origin);
  bodies.AddBody(body.GetID(), Jolt.EActivation_Activate);
  const motion = Jolt.castObject(body.GetMotionProperties(), Jolt.SoftBodyMotionProperties);
  return {
    frame: () => jolt.Step(1 / 60, 1),
    positions: () => {
      const out = new Float64Array(3 * model.particleCount);
      for (let i = 0; i < model.particleCount; i++) {
        const p = motion.GetVertex(i).mPosition;
        out[3 * i] = p.GetX();
        out[3 * i + 1] = p.GetY();
        out[3 * i + 2] = p.GetZ();
      }
      return out;
    },
    destroy: () => {
      bodies.RemoveBody(body.GetID());
      bodies.DestroyBody(body.GetID());
      Jolt.destroy(jolt);
    },
  };
}

function ammoWorld(Ammo, model, scene, n) {
  const h = stepOf(scene);
  const collision = new Ammo.btSoftBodyRigidBodyCollisionConfiguration();
  const dispatcher = new Ammo.btCollisionDispatcher(collision);
  const broadphase = new Ammo.btDbvtBroadphase();
  const solver = new Ammo.btSequentialImpulseConstraintSolver();
  const softSolver = new Ammo.btDefaultSoftBodySolver();
  const world = new Ammo.btSoftRigidDynamicsWorld(dispatcher, broadphase, solver, collision, softSolver);
  const gravity = new Ammo.btVector3(...model.gravity);
  world.setGravity(gravity);
  world.getWorldInfo().set_m_gravity(gravity);

  // CreatePatch lays node (i, j) at index j·n + i between its four corners, as buildCloth does;
  // fixeds 4 | 8 pins nodes (0, n−1) and (n−1, n−1), Weft's 'top-corners'.
  const side = 0.1 * (n - 1);
  const corners = [
    [0, 0, 0],
    [side, 0, 0],
    [0, 0, side],
    [side, 0, side],
  ].map((c) => new Ammo.btVector3(...c));
  const helpers = new Ammo.btSoftBodyHelpers();
  const body = helpers.CreatePatch(world.getWorldInfo(), ...corners, n, n, 4 | 8, true);
  for (const c of corners) Ammo.destroy(c);
  Ammo.destroy(helpers);
  for (let i = 0; i < model.particleCount; i++)
    body.setMass(i, model.particleFixed[i] ? 0 : model.particleMass[i]);

  // CreatePatch made the structural links and one diagonal per quad (btSoftBodyHelpers.cpp):
  // (i, j)–(i+1, j+1) where i + j is odd, (i+1, j)–(i, j+1) where it is even. Append the rest of
  // the model's springs (the other diagonal, the bend springs) with the same material, without
  // Bullet's existence check, which is linear in the link count.
  const key = (a, b) => Math.min(a, b) * model.particleCount + Math.max(a, b);
  const made = new Set();
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      if (i + 1 < n) made.add(key(j * n + i, j * n + i + 1));
      if (j + 1 < n) made.add(key(j * n + i, (j + 1) * n + i));
      if (i + 1 < n && j + 1 < n) {
        made.add((i + j) & 1 ? key(j * n + i, (j + 1) * n + i + 1) : key(j * n + i + 1, (j + 1) * n + i));
      }
    }
  }
  const material = body.get_m_materials().at(0);
  const w = 2 / model.particleMass[0];
  material.set_m_kLST(w / (w + 1 / (model.springStiffness[0] * h * h)));
  for (let s = 0; s < model.springCount; s++) {
    const a = model.springIndices[2 * s];
    const b = model.springIndices[2 * s + 1];
    if (!made.has(key(a, b))) body.appendLink(a, b, material, false);
  }
  const config = body.get_m_cfg();
  config.set_piterations(1);
  config.set_viterations(0);
  config.set_diterations(0);
  config.set_kDP(0);
  config.set_kDG(0);
  config.set_kLF(0);
  config.set_collisions(0);
  world.addSoftBody(body, 1, -1);
  const nodes = body.get_m_nodes();
  return {
    // One fixed substep per call: exactly stepsPerFrame substeps a frame, none lost to Bullet's
    // accumulator rounding.
    frame: () => {
      for (let k = 0; k < scene.stepsPerFrame; k++) world.stepSimulation(h, 1, h);
    },
    positions: () => {
      const out = new Float64Array(3 * model.particleCount);
      for (let i = 0; i < model.particleCount; i++) {
        const p = nodes.at(i).get_m_x();
        out[3 * i] = p.x();
        out[3 * i + 1] = p.y();
        out[3 * i + 2] = p.z();
      }
      return out;
    },
    destroy: () => {
      world.removeSoftBody(body);
      for (const object of [body, world, softSolver, solver, broadphase, dispatcher, collision, gravity]) {
        Ammo.destroy(object);
      }
    },
  };
}

/**
 * One peer case, time-boxed like Weft's: frames of 1/60 s (16 substeps in the Warp scene); a
 * "step" is a substep, so ms per step is comparable with Weft's.
 */
export async function runPeerCase({ peer, model, sceneName, n, frames, budget, qualityBudget, onChunk }) {
  const scene = SCENES[sceneName];
  const module = await loadPeer(peer);
  const setupStarted = performance.now();
  const world = peer === 'jolt' ? joltWorld(module, model, scene) : ammoWorld(module, model, scene, n);
  const setupMs = performance.now() - setupStarted;
  const dt = stepOf(scene);
  try {
    const maxSteps = frames * scene.stepsPerFrame;
    const run = await timeBoxed({
      advance: async (steps) => {
        for (let f = 0; f < steps / scene.stepsPerFrame; f++) world.frame();
      },
      unit: scene.stepsPerFrame,
      stepsPerFrame: scene.stepsPerFrame,
      maxSteps,
      budget,
      qualityBudget,
      onChunk,
    });
    const positions = world.positions();
    const finite = positions.every(Number.isFinite);
    const row = {
      status: finite ? 'ok' : 'diverged',
      note: finite ? '' : 'NaN/Inf in the positions',
      setup_ms: setupMs,
      warm_up_ms: 1000 * run.warmUpSeconds,
      samples: run.samples,
      timed_steps: run.timedSteps,
      ms_per_step: 1000 * run.secondsPerStep,
      ms_per_step_min: 1000 * run.minSecondsPerStep,
      steps_per_s: 1 / run.secondsPerStep,
      sim_s_per_wall_s: dt / run.secondsPerStep,
      sim_time_s: run.stepsDone * dt,
    };
    if (finite && run.stepsDone === maxSteps) {
      const quality = qualityOf(model, positions);
      Object.assign(row, {
        quality_time_s: maxSteps * dt,
        sag_m: quality.sag,
        max_strain: quality.maxStrain,
      });
      row.note = blowUpNote(model, quality);
    } else if (finite) {
      row.note = `time box reached at t = ${(run.stepsDone * dt).toFixed(3)} s, before the ${+(maxSteps * dt).toFixed(3)} s quality figures`;
    }
    return row;
  } finally {
    world.destroy();
  }
}
