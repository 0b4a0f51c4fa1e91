/** `weft run garment.obj`: an OBJ file and the material flags as a model, with what it is made of. */
import { WeftInputError } from '../core/errors.ts';
import { meshToModel } from '../model/mesh.ts';
import { meshTopology } from '../model/mesh-topology.ts';
import type { Model } from '../model/model.ts';
import { loadObj, type ObjMesh } from '../model/obj.ts';
import { flagValue } from './flags.ts';
import { materialFromFlags } from './mesh-flags.ts';

/** What the JSON output's `stats.mesh` reports of a mesh scene. */
export interface MeshStats {
  vertices: number;
  /** Triangles after fan triangulation. */
  triangles: number;
  /** Faces as the file has them. */
  faces: number;
  /** Stretch springs: one per unique edge. */
  edges: number;
  /** Edges of two triangles (each gives a bending spring unless its opposite vertices are joined). */
  interiorEdges: number;
  boundaryEdges: number;
  nonManifoldEdges: number;
  bendSprings: number;
  /** m² */
  area: number;
  /** kg */
  mass: number;
  pinned: number;
}

export interface MeshScene {
  model: Model;
  mesh: ObjMesh;
  stats: MeshStats;
}

/**
 * meshToModel's errors about a vertex or a triangle, renamed to the file and line it came from
 * (`garment.obj:12`); an error about the pinned vertices names `--pin`.
 */
function located(error: WeftInputError, path: string, mesh: ObjMesh): WeftInputError {
  const problem = error.message.slice(error.field.length + 2);
  const triangle = /^triangles\[(\d+)\]/.exec(error.field);
  const vertex = /^positions\[(\d+)\]/.exec(error.field);
  const note = ' (vertex and triangle numbers here are 0-based: OBJ number − 1)';
  if (triangle)
    return new WeftInputError(`${path}:${mesh.triangleLines[Math.floor(Number(triangle[1]) / 3)]}`, problem + note); // prettier-ignore
  if (vertex)
    return new WeftInputError(`${path}:${mesh.vertexLines[Math.floor(Number(vertex[1]) / 3)]}`, problem + note); // prettier-ignore
  if (error.field.startsWith('material.pinned')) return new WeftInputError('--pin', problem);
  return error;
}

/** Reads the OBJ file at `path` (its text given) and builds the model the flags describe. */
export function meshScene(
  path: string,
  text: string,
  values: Readonly<Record<string, string | boolean | undefined>>,
): MeshScene {
  const mesh = loadObj(text, { source: path });
  const material = materialFromFlags(values, mesh.positions, flagValue);
  let model: Model;
  try {
    model = meshToModel(mesh.positions, mesh.triangles, material);
  } catch (error) {
    throw error instanceof WeftInputError ? located(error, path, mesh) : error;
  }
  const topology = meshTopology(mesh.positions, mesh.triangles);
  const edges = topology.edges.length / 2;
  return {
    model,
    mesh,
    stats: {
      vertices: model.particleCount,
      triangles: mesh.triangles.length / 3,
      faces: mesh.faceOffsets.length - 1,
      edges,
      interiorEdges: topology.interiorEdges,
      boundaryEdges: topology.boundaryEdges,
      nonManifoldEdges: topology.nonManifoldEdges,
      bendSprings: model.springCount - edges,
      area: topology.triangleAreas.reduce((sum, a) => sum + a, 0),
      mass: model.particleMass.reduce((sum, m) => sum + m, 0),
      pinned: model.particleFixed.reduce((sum, f) => sum + f, 0),
    },
  };
}
