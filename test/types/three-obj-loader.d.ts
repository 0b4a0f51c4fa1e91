// The part of three.js's OBJLoader (a devDependency; three ships no types) that test/obj.test.ts uses.
declare module 'three/examples/jsm/loaders/OBJLoader.js' {
  export class OBJLoader {
    parse(text: string): {
      children: { name: string; geometry: { getAttribute(name: string): { array: Float32Array; count: number } } }[]; // prettier-ignore
    };
  }
}
