// A small seeded PRNG, so every install gets the same demo shop and every benchmark the same
// dataset. sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 32-bit state words,
// good statistical quality for test data and several times faster than a crypto source.

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    // The first outputs of a fresh state are poorly mixed.
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An independent generator for one part of the data, so adding rows to one part leaves the others alone. */
  fork(label: string): Random {
    let h = 2166136261;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
    return new Random((h ^ Math.floor(this.next() * 4294967296)) >>> 0);
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An item by weight: `[[item, weight], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let roll = this.next() * total;
    for (const [item, weight] of choices) {
      roll -= weight;
      if (roll < 0) return item;
    }
    return choices[choices.length - 1]![0];
  }

  /** `count` distinct items (fewer when the list is shorter), in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }

  /** An index in [0, size) skewed towards 0 (a few bestsellers, a long tail): roughly Zipf-like. */
  skewed(size: number, exponent = 2): number {
    return Math.min(size - 1, Math.floor(size * Math.pow(this.next(), exponent)));
  }

  /** Hex digits, for session ids and the like. */
  hex(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.next() * 4294967296)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }
}

/** Picks by cumulative weights with a binary search: for sampling many times from a long list. */
export class WeightedIndex {
  private readonly cumulative: Float64Array;

  constructor(weights: ArrayLike<number>) {
    this.cumulative = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i++) {
      total += weights[i]!;
      this.cumulative[i] = total;
    }
  }

  get size(): number {
    return this.cumulative.length;
  }

  pick(random: Random): number {
    const total = this.cumulative[this.cumulative.length - 1] ?? 0;
    const roll = random.next() * total;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.cumulative[mid]! > roll) high = mid;
      else low = mid + 1;
    }
    return low;
  }
}
