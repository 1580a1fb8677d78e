import { performance } from 'node:perf_hooks';
import { purchase } from './buyers.js';
import { percentile } from './stats.js';

// The mixed load of the scale-out run: shoppers who browse, search, register, fill baskets and buy,
// each request sent to the next API process in turn (as a load balancer without stickiness would).

export type ActionKind = 'browse' | 'search' | 'register' | 'basket' | 'purchase';

export interface ActionTally {
  done: number;
  failed: number;
  latenciesMs: number[];
  firstError?: string;
}

export interface MixedLoadInput {
  apis: readonly string[];
  productIds: readonly number[];
  /** Prepared guest baskets, each bought once. */
  baskets: readonly string[];
  /** The checkout form; each purchase gets its own buyer email. */
  form: Record<string, unknown>;
  shoppers: number;
  seconds: number;
}

export interface MixedLoadResult {
  tallies: Record<ActionKind, ActionTally>;
  /** The emails that registered (each must get exactly one mail). */
  registered: string[];
  /** The orders bought, with the buyer's email. */
  orders: { id: number; email: string }[];
  seconds: number;
}

/** How often each action comes up, out of 20. */
const WEIGHTS: [ActionKind, number][] = [
  ['browse', 8],
  ['search', 5],
  ['basket', 3],
  ['register', 2],
  ['purchase', 2],
];
const SEARCH_WORDS = ['book', 'checkout', 'Checkout book 1', 'book 7'];

function pickAction(n: number): ActionKind {
  let slot = n % 20;
  for (const [kind, weight] of WEIGHTS) {
    if (slot < weight) return kind;
    slot -= weight;
  }
  return 'browse';
}

async function expectOk(response: Response, what: string): Promise<void> {
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${body.slice(0, 200)}`);
}

export async function runMixedLoad(input: MixedLoadInput): Promise<MixedLoadResult> {
  const tallies = Object.fromEntries(WEIGHTS.map(([kind]) => [kind, { done: 0, failed: 0, latenciesMs: [] }])) as unknown as Record<
    ActionKind,
    ActionTally
  >;
  const registered: string[] = [];
  const orders: { id: number; email: string }[] = [];
  const runId = Date.now().toString(36);
  let counter = 0;
  let nextBasket = 0;
  const pick = <T>(items: readonly T[], n: number) => items[n % items.length]!;

  const act = async (kind: ActionKind, n: number, api: string): Promise<void> => {
    switch (kind) {
      case 'browse':
        return expectOk(await fetch(`${api}/product/${pick(input.productIds, n * 7)}`), 'GET /product');
      case 'search':
        return expectOk(await fetch(`${api}/product/search?q=${encodeURIComponent(pick(SEARCH_WORDS, n))}`), 'GET /product/search');
      case 'basket': {
        const response = await fetch(`${api}/basket/add-product`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ productId: pick(input.productIds, n * 13), quantity: 1 }),
        });
        return expectOk(response, 'POST /basket/add-product');
      }
      case 'register': {
        const email = `scale-${runId}-${n}@example.ee`;
        // Each registration from an address of its own: the rate-limit probe owns another one.
        const response = await fetch(`${api}/auth/register-simple`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', store: 'WEB', 'x-forwarded-for': `10.1.${(n >> 8) & 255}.${n & 255}` },
          body: JSON.stringify({ email, firstName: 'Mari', lastName: 'Maasikas' }),
        });
        await expectOk(response, 'POST /auth/register-simple');
        registered.push(email);
        return;
      }
      case 'purchase': {
        const email = `buyer-${runId}-${n}@example.ee`;
        const form = JSON.stringify({ ...input.form, shippingEmail: email, billingEmail: email });
        orders.push({ id: await purchase(api, input.baskets[nextBasket++]!, form), email });
        return;
      }
    }
  };

  const started = performance.now();
  const deadline = started + input.seconds * 1000;
  const shopper = async () => {
    while (performance.now() < deadline) {
      const n = counter++;
      // Once every filled basket is bought, a purchase drawn is a browse (and counted as one).
      const drawn = pickAction(n);
      const kind = drawn === 'purchase' && nextBasket >= input.baskets.length ? 'browse' : drawn;
      const begun = performance.now();
      try {
        await act(kind, n, input.apis[n % input.apis.length]!);
        tallies[kind].done += 1;
        tallies[kind].latenciesMs.push(performance.now() - begun);
      } catch (err) {
        tallies[kind].failed += 1;
        tallies[kind].firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: input.shoppers }, shopper));
  return { tallies, registered, orders, seconds: (performance.now() - started) / 1000 };
}

export function p99(tally: ActionTally): number {
  return tally.latenciesMs.length ? percentile(tally.latenciesMs, 99) : NaN;
}
