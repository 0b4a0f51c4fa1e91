/**
 * The cloth demo's controls at their defaults, read from examples/cloth/index.html, for tests that
 * build the demo's scenes on the CPU (examples/cloth/scenes.ts, world.ts) to compare with the page.
 */
import { readFileSync } from 'node:fs';
import type { SceneSettings } from '../../examples/cloth/scenes.ts';

export type DemoSettings = SceneSettings & { wind: number; colliders: boolean };

const PAGE = readFileSync(new URL('../../examples/cloth/index.html', import.meta.url), 'utf8');

/** The `value` of index.html's input #id. */
function inputDefault(id: string): number {
  const match = new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(PAGE);
  if (!match) throw new Error(`examples/cloth/index.html has no input #${id} with a value`);
  return Number(match[1]);
}

/** index.html's defaults, with the scene, size and pins of the page under test. */
export function demoSettings(
  scene: SceneSettings['scene'],
  size: number,
  pins: SceneSettings['pins'],
): DemoSettings {
  const [structural, shear, bend, bending, selfCollision, damping, gravity, wind] = ['structural', 'shear', 'bend', 'bending', 'selfCollision', 'damping', 'gravity', 'wind'].map(inputDefault) as [number, number, number, number, number, number, number, number]; // prettier-ignore
  const colliders = /id="colliders"[^>]*checked/.test(PAGE);
  return { scene, size, pins, structural, shear, bend, bending, selfCollision, damping, gravity, wind, colliders }; // prettier-ignore
}
