import { performance } from 'node:perf_hooks';
import { percentile } from './stats.js';

// Concurrent buyers for the checkout benchmark: each takes the next prepared basket (a basket is
// checked out once, so autocannon's repeated request does not fit) and times what it does with it.

export interface BuyerRun {
  done: number;
  failed: number;
  /** From the first buyer's start to the last one's end. */
  seconds: number;
  latenciesMs: number[];
  firstError: string | undefined;
}

/** The queue of prepared baskets the buyers share; `next` is the first one not yet taken. */
export interface BasketQueue<T> {
  items: readonly T[];
  next: number;
}

/**
 * `buyers` concurrent buyers take baskets from `queue` until it is empty or `seconds` have passed
 * (the request in hand is finished); `act` does one buyer's part for a basket and throws on a failure.
 */
export async function runBuyers<T>(
  queue: BasketQueue<T>,
  buyers: number,
  seconds: number,
  act: (item: T) => Promise<void>,
): Promise<BuyerRun> {
  const run: BuyerRun = { done: 0, failed: 0, seconds: 0, latenciesMs: [], firstError: undefined };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const buyer = async () => {
    while (performance.now() < deadline && queue.next < queue.items.length) {
      const item = queue.items[queue.next++]!;
      const t0 = performance.now();
      try {
        await act(item);
        run.latenciesMs.push(performance.now() - t0);
        run.done += 1;
      } catch (error) {
        run.failed += 1;
        run.firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: buyers }, buyer));
  run.seconds = (performance.now() - started) / 1000;
  return run;
}

/** The runs of several slices as one. */
export function combineRuns(runs: BuyerRun[]): BuyerRun & { rate: number; sliceRange: [number, number]; p50: number; p99: number } {
  const latencies = runs.flatMap((r) => r.latenciesMs);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const done = runs.reduce((sum, r) => sum + r.done, 0);
  const rates = runs.map((r) => r.done / r.seconds);
  return {
    done,
    failed: runs.reduce((sum, r) => sum + r.failed, 0),
    seconds,
    latenciesMs: latencies,
    firstError: runs.find((r) => r.firstError !== undefined)?.firstError,
    rate: done / seconds,
    sliceRange: [Math.min(...rates), Math.max(...rates)],
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${(await response.text()).slice(0, 300)}`);
}

/** POST /checkout of a guest's basket; answers the create-form path and the order id. */
export async function checkout(base: string, basketToken: string, form: string): Promise<{ path: string; orderId: number }> {
  const response = await fetch(`${base}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'basket-token': basketToken },
    body: form,
  });
  await expectStatus(response, 200, 'POST /checkout');
  const url = new URL(((await response.json()) as { location: string }).location);
  return { path: `${url.pathname}${url.search}`, orderId: Number(url.searchParams.get('orderId')) };
}

/**
 * The buyer's part of a purchase through the test gateway: checkout, the create-form, the Pay
 * button of the gateway's page (which posts the callback to the service), and the browser's
 * return to the shop that the Pay answer redirects to. Answers the order id.
 */
export async function purchase(base: string, basketToken: string, form: string): Promise<number> {
  const placed = await checkout(base, basketToken, form);
  const created = await fetch(`${base}${placed.path}`);
  await expectStatus(created, 200, 'GET /bank/create-form');
  const page = new URL(((await created.json()) as { url: string }).url);
  const paid = await fetch(`${base}${page.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'action=pay',
    redirect: 'manual',
  });
  await expectStatus(paid, 303, `POST ${page.pathname}`);
  await paid.arrayBuffer();
  const back = new URL(paid.headers.get('location')!);
  const returned = await fetch(`${base}${back.pathname}${back.search}`, { redirect: 'manual' });
  await expectStatus(returned, 303, 'GET /bank/return-internal');
  await returned.arrayBuffer();
  return placed.orderId;
}
