// The first products of a list in the order of the caller's price (what their cards show, priced
// by pricing.ts), without pricing the whole list. The price is not a column: it is the lower of a
// regular price and a running campaign price, or a company's own price, and it changes with the
// caller and the clock. So the list is read as a few streams, each in an indexed order, whose head
// bounds the price of every product the stream has not given yet; a product met first in any
// stream is priced exactly and held until no product still unread can come before it.
//
// Ascending, a product not yet read from any stream costs at least the lowest of the streams'
// bounds (its price is its regular price or a campaign or own price, each at or past its stream's
// head); descending, at most the highest. A held product goes out when its price is strictly past
// that bound (an unread product of the same price might have a lower id), or when every stream is
// read to its end. The rows read are about the page's end (offset + limit) per stream, and a few
// more where equal prices run on.

export type Direction = 'asc' | 'desc';

/** One ordered stream of a list's products: rows `at` an offset, in the stream's order of `key`. */
export interface PriceStream {
  read(offset: number, limit: number): Promise<Array<{ id: number; key: number }>>;
  /** The bound (lowest ascending, highest descending) of the price of a product the stream gives at or after `key`. */
  bound(key: number): number;
}

/** The caller's price of each product in cents; a product missing from the answer (removed meanwhile) is left out. */
export type PriceOf = (ids: readonly number[]) => Promise<Map<number, number>>;

interface Held {
  id: number;
  price: number;
}

// A stream's first read: the page's end and a few more, at most FIRST_BATCH_MOST rows; each further read doubles.
const FIRST_BATCH_EXTRA = 8;
const FIRST_BATCH_MOST = 256;
/** Rows taken from a stream at least per round, whatever the other streams' bounds. */
const MIN_TAKE = 8;
const MAX_BATCH = 2_000;

/** The ids of the first `wanted` products, ordered by (price, id) in `direction` (both the same way). */
export async function priceOrderedIds(streams: PriceStream[], priceOf: PriceOf, direction: Direction, wanted: number): Promise<number[]> {
  const sign = direction === 'asc' ? 1 : -1;
  // Everything below works ascending; a descending order is the ascending order of negated prices and ids.
  const before = (a: Held, b: Held) => sign * (a.price - b.price) < 0 || (a.price === b.price && sign * (a.id - b.id) < 0);
  const held = new Heap<Held>(before);
  const seen = new Set<number>();
  const out: number[] = [];
  const states = streams.map((stream) => ({
    stream,
    rows: [] as Array<{ id: number; key: number }>,
    read: 0,
    batch: Math.min(wanted + FIRST_BATCH_EXTRA, FIRST_BATCH_MOST),
    done: false,
  }));

  while (out.length < wanted) {
    // Every stream still open shows its head, so that its bound is known.
    await Promise.all(
      states
        .filter((state) => !state.done && state.rows.length === 0)
        .map(async (state) => {
          state.rows = await state.stream.read(state.read, state.batch);
          state.read += state.rows.length;
          // A short read is the stream's end: its rows still count, and after them it bounds nothing.
          if (state.rows.length < state.batch) state.done = true;
          state.batch = Math.min(state.batch * 2, MAX_BATCH);
        }),
    );
    const open = states.filter((state) => state.rows.length > 0);
    // The bound of the products no stream has given yet, the stream it comes from, and the next stream's.
    let limiting: (typeof states)[number] | undefined;
    let bound = Infinity;
    let next = Infinity;
    for (const state of open) {
      const value = sign * state.stream.bound(state.rows[0]!.key);
      if (value < bound) [next, bound, limiting] = [bound, value, state];
      else if (value < next) next = value;
    }
    while (held.size > 0 && out.length < wanted && (limiting === undefined || sign * held.peek()!.price < bound)) out.push(held.pop()!.id);
    if (limiting === undefined || out.length >= wanted) break;
    // Take the limiting stream's rows up to the next stream's bound (the merge's step; a few more at
    // least, so that interleaved streams do not cost a round each row), and no more than the page
    // still needs: every row taken is priced, which costs far more than reading it.
    const fresh: number[] = [];
    const most = Math.max(MIN_TAKE, wanted - out.length);
    let taken = 0;
    while (
      taken < limiting.rows.length &&
      fresh.length < most &&
      (taken < MIN_TAKE || sign * limiting.stream.bound(limiting.rows[taken]!.key) <= next)
    ) {
      const { id } = limiting.rows[taken]!;
      taken += 1;
      if (!seen.has(id)) {
        seen.add(id);
        fresh.push(id);
      }
    }
    limiting.rows = limiting.rows.slice(taken);
    if (fresh.length === 0) continue;
    const prices = await priceOf(fresh);
    for (const id of fresh) {
      const price = prices.get(id);
      if (price !== undefined) held.push({ id, price });
    }
  }
  return out;
}

/** A binary heap: `before(a, b)` says a comes out first. */
class Heap<T> {
  private readonly items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let first = i;
        if (left < items.length && this.before(items[left]!, items[first]!)) first = left;
        if (right < items.length && this.before(items[right]!, items[first]!)) first = right;
        if (first === i) break;
        [items[i], items[first]] = [items[first]!, items[i]!];
        i = first;
      }
    }
    return top;
  }
}
