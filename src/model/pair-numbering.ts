/**
 * Numbers of node pairs (I, J), I < J, in the order first met, for the multigrid hierarchy's
 * coarse edges (multigrid-hierarchy.ts, galerkin-terms.ts). Each node keeps a linked list of its
 * pairs in typed arrays: a lookup scans the node's few neighbours (a coarse node has tens), where a
 * Map keyed by I·2³² + J hashed a heap number per call (1.1 s of a 256² hierarchy's 5 s).
 */
export class PairNumbering {
  /** Per node I, its last pair, −1: none. */
  private readonly head: Int32Array;
  /** Per pair: the pair before it in its node's list, −1: none. */
  private next = new Int32Array(1024);
  private first = new Uint32Array(1024);
  private second = new Uint32Array(1024);
  count = 0;

  constructor(nodeCount: number) {
    this.head = new Int32Array(nodeCount).fill(-1);
  }

  /** The number of (I, J), I < J; a new pair gets the next one. */
  of(I: number, J: number): number {
    for (let k = this.head[I]!; k >= 0; k = this.next[k]!) if (this.second[k] === J) return k;
    if (this.count === this.next.length) this.grow();
    const k = this.count++;
    [this.first[k], this.second[k], this.next[k], this.head[I]] = [I, J, this.head[I]!, k];
    return k;
  }

  /** Pair k's nodes. */
  pair(k: number): [number, number] {
    return [this.first[k]!, this.second[k]!];
  }

  /** The pairs in (I, J) order, and each number's place in it. */
  ordered(): { edgeA: Uint32Array; edgeB: Uint32Array; position: Uint32Array } {
    const [edgeA, edgeB, position] = [new Uint32Array(this.count), new Uint32Array(this.count), new Uint32Array(this.count)]; // prettier-ignore
    const partners: number[] = [];
    let place = 0;
    for (let I = 0; I < this.head.length; I++) {
      partners.length = 0;
      for (let k = this.head[I]!; k >= 0; k = this.next[k]!) partners.push(k);
      partners.sort((x, y) => this.second[x]! - this.second[y]!);
      for (const k of partners) {
        [edgeA[place], edgeB[place], position[k]] = [I, this.second[k]!, place];
        place++;
      }
    }
    return { edgeA, edgeB, position };
  }

  private grow(): void {
    const size = 2 * this.next.length;
    const next = new Int32Array(size);
    const [first, second] = [new Uint32Array(size), new Uint32Array(size)];
    next.set(this.next);
    first.set(this.first);
    second.set(this.second);
    [this.next, this.first, this.second] = [next, first, second];
  }
}
