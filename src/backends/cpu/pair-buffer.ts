/** The (primitive, partner) pairs self-collision detection found so far (self-contact-detect.ts), [count] each, grown by doubling. */
export class PairBuffer {
  first = new Uint32Array(1024);
  second = new Uint32Array(1024);
  count = 0;
  push(primitive: number, partner: number): void {
    if (this.count === this.first.length) {
      const [first, second] = [new Uint32Array(2 * this.count), new Uint32Array(2 * this.count)];
      first.set(this.first);
      second.set(this.second);
      [this.first, this.second] = [first, second];
    }
    this.first[this.count] = primitive;
    this.second[this.count] = partner;
    this.count++;
  }
  /** Sorts partners [from, count) (one primitive's list): insertion sort when short. */
  sortFrom(from: number): void {
    const second = this.second;
    if (this.count - from > 16) {
      second.subarray(from, this.count).sort();
      return;
    }
    for (let i = from + 1; i < this.count; i++) {
      const partner = second[i]!;
      let j = i - 1;
      for (; j >= from && second[j]! > partner; j--) second[j + 1] = second[j]!;
      second[j + 1] = partner;
    }
  }
}
