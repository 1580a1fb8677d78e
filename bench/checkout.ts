// Checkout and a full purchase through the test gateway, beside the raw node:http ceiling in the
// same run, with 20 concurrent buyers (issue 14). Target: checkouts of a 5-line basket at 1 % or
// more of the ceiling's requests/s on SQLite; p99 and (with --postgres) the PostgreSQL figures are
// reported beside them, and the orders one worker processes per second.
//
//   npm run build && npx tsx bench/checkout.ts [--postgres postgres://user@host:port/postgres] [--seconds 10]
//
// - checkout: every POST /checkout is a different guest basket of 5 books (filled beforehand over
//   HTTP; a basket is checked out once), in slices taking turns with the ceiling's.
// - full purchase: checkout, GET /bank/create-form, the test gateway page's Pay (which posts the
//   callback to the service over HTTP) and the browser's return; then `storefront worker`, a
//   process of its own on the service's CPU, processes the paid order (stock sold, mail to a file,
//   signed hand-off to a local back office that takes it) up to COMPLETED. Purchases/s run from the
//   first checkout to the last order's COMPLETED.
// - worker: paid orders left waiting with the worker stopped, then one worker started: orders per
//   second from its first PROCESSING to its last COMPLETED (the times the service recorded).
// Writes its section of bench/RESULTS.md (`<!-- bench:checkout -->`).
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { createDatabase } from '../src/db/database.js';
import { checkout, combineRuns, purchase, runBuyers, type BasketQueue, type BuyerRun } from './lib/buyers.js';
import {
  checkoutForm,
  fillBaskets,
  freshPostgresDatabase,
  importCourier,
  prepareShop,
  startBackoffice,
  startWorker,
} from './lib/checkout-shop.js';
import { killAllChildren, pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { renderCheckoutSection, type EngineResult } from './lib/checkout-report.js';
import { statusTimes, waitForStatus } from './lib/order-progress.js';
import { writeResultsSection } from './lib/results-file.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const LINES = 5;
const DONE = ['COMPLETED', 'PENDING_NAV_PROCESSING'] as const;
/** How long processing may take after the last buyer before the run gives up waiting. */
const PROCESSING_TIMEOUT_MS = 180_000;

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    products: { type: 'string', default: '500' },
    baskets: { type: 'string', default: '2500' },
    purchases: { type: 'string', default: '400' },
    drain: { type: 'string', default: '400' },
    buyers: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    slice: { type: 'string', default: '2' },
    // A directory: the service writes a CPU profile there when it stops (node --cpu-prof).
    'cpu-prof': { type: 'string' },
  },
});
const options = {
  products: Number(values.products),
  baskets: Number(values.baskets),
  purchases: Number(values.purchases),
  drain: Number(values.drain),
  buyers: Number(values.buyers),
  seconds: Number(values.seconds),
  warmup: Number(values.warmup),
  slice: Number(values.slice),
};
const log = (line: string) => process.stderr.write(`${line}\n`);

async function benchEngine(label: string, databaseUrl: string, ceiling: RunningChild, pinned: boolean): Promise<EngineResult> {
  log(`${label}: ${options.products} books`);
  const shop = await prepareShop(databaseUrl, options.products);
  const backoffice = await startBackoffice();
  const mailDir = join(ROOT, 'bench', '.tmp', `checkout-mail-${label}`);
  rmSync(mailDir, { recursive: true, force: true });
  const env = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    BASE_PATH: '',
    TEST_GATEWAY: 'on',
    // PUBLIC_URL: unset, it is http://127.0.0.1:<PORT>, the address startChild gives the service.
    CHECKOUT_RATE_LIMIT_PER_IP: '100000000/1m',
    BASKET_RATE_LIMIT_PER_IP: '100000000/1m',
    BASKET_WRITE_RATE_LIMIT_PER_IP: '100000000/1m',
    // Every purchase's return (and callback) comes from the one load address.
    PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000000/1m',
    WORKER: 'off',
    MAIL_DIR: mailDir,
    BACKOFFICE_ORDERS_URL: backoffice.url,
    BACKOFFICE_ORDERS_SECRET: 'bench-backoffice-secret-0123456789abcdef',
  };
  const nodeOptions = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
  const service = await startChild({ script: 'dist/main.js', args: ['serve'], env, nodeOptions, readyPath: '/site/health' }, ROOT);
  const database = createDatabase(databaseUrl);
  try {
    const base = service.baseUrl;
    const form = JSON.stringify(checkoutForm(await importCourier(base, shop.apiKey, databaseUrl)));
    // PORT and PUBLIC_URL as the service has them: the worker's gateways name the same pages.
    const workerEnv = { ...env, PORT: new URL(base).port };
    const fillStarted = Date.now();
    const total = options.baskets + options.purchases + options.drain;
    const tokens = await fillBaskets(base, shop.productIds, total, LINES);
    log(`${label}: ${total} baskets of ${LINES} lines filled in ${((Date.now() - fillStarted) / 1000).toFixed(0)} s`);

    // 1. Checkout, in slices taking turns with the ceiling.
    const queue: BasketQueue<string> = { items: tokens.slice(0, options.baskets), next: 0 };
    const checkoutOnce = async (token: string) => void (await checkout(base, token, form));
    const ceilingRun = (seconds: number) =>
      autocannon({ url: ceiling.baseUrl, duration: seconds, connections: options.buyers, pipelining: 1, timeout: 10 });
    await ceilingRun(options.warmup);
    await runBuyers(queue, options.buyers, options.warmup, checkoutOnce);
    const ceilingSlices: Result[] = [];
    const checkoutSlices: BuyerRun[] = [];
    let cpu = 0;
    for (let left = options.seconds; left > 0 && queue.next < queue.items.length; left -= options.slice) {
      const seconds = Math.min(left, options.slice);
      ceilingSlices.push(await ceilingRun(seconds));
      const before = service.cpuSeconds() ?? NaN;
      checkoutSlices.push(await runBuyers(queue, options.buyers, seconds, checkoutOnce));
      cpu += (service.cpuSeconds() ?? NaN) - before;
    }
    const checkouts = combineRuns(checkoutSlices);
    const ceilingRate = ceilingSlices.reduce((s, r) => s + r.requests.total, 0) / ceilingSlices.reduce((s, r) => s + r.duration, 0);
    const ceilingRates = ceilingSlices.map((r) => r.requests.total / r.duration);
    log(`${label}: ceiling ${ceilingRate.toFixed(0)} req/s; checkout ${checkouts.rate.toFixed(1)}/s, p99 ${checkouts.p99.toFixed(0)} ms`);
    if (queue.next >= queue.items.length) log(`${label}: all ${options.baskets} checkout baskets used; raise --baskets`);

    // 2. Full purchases with the worker running.
    let worker = startWorker(workerEnv, ROOT, pinned);
    const purchaseIds: number[] = [];
    const started = Date.now();
    const purchaseQueue: BasketQueue<string> = { items: tokens.slice(options.baskets, options.baskets + options.purchases), next: 0 };
    const bought = await runBuyers(purchaseQueue, options.buyers, Infinity, async (token) => {
      purchaseIds.push(await purchase(base, token, form));
    });
    const purchasesDone = await waitForStatus(database.db, purchaseIds, [...DONE], PROCESSING_TIMEOUT_MS);
    const completedAt = (await statusTimes(database.db, purchaseIds, 'COMPLETED')).last;
    const buyerSide = combineRuns([bought]);
    const purchaseSeconds = (completedAt - started) / 1000;
    log(`${label}: ${purchasesDone} purchases processed in ${purchaseSeconds.toFixed(1)} s; buyer p99 ${buyerSide.p99.toFixed(0)} ms`);
    await worker.stop();

    // 3. One worker's orders/s: paid orders wait with the worker stopped, then one drains them.
    const drainIds: number[] = [];
    const drainQueue: BasketQueue<string> = { items: tokens.slice(options.baskets + options.purchases), next: 0 };
    const drainBought = await runBuyers(drainQueue, options.buyers, Infinity, async (token) => {
      drainIds.push(await purchase(base, token, form));
    });
    const paid = await waitForStatus(database.db, drainIds, ['PENDING_PROCESSING'], 60_000);
    worker = startWorker(workerEnv, ROOT, pinned);
    const drained = await waitForStatus(database.db, drainIds, [...DONE], PROCESSING_TIMEOUT_MS);
    await worker.stop();
    const drainStart = (await statusTimes(database.db, drainIds, 'PROCESSING')).first;
    const drainEnd = (await statusTimes(database.db, drainIds, 'COMPLETED')).last;
    const workerRate = drained / ((drainEnd - drainStart) / 1000);
    log(`${label}: one worker: ${drained} of ${paid} paid orders at ${workerRate.toFixed(1)} orders/s`);

    return {
      label,
      ceiling: { rate: ceilingRate, sliceRange: [Math.min(...ceilingRates), Math.max(...ceilingRates)] },
      checkout: { ...checkouts, cpuMsPer: (cpu / checkouts.done) * 1000 },
      purchase: {
        rate: purchasesDone / purchaseSeconds,
        buyerP50: buyerSide.p50,
        buyerP99: buyerSide.p99,
        attempted: options.purchases,
        processed: purchasesDone,
        failed: bought.failed,
        firstError: bought.firstError,
        handedOff: backoffice.received(),
      },
      worker: { rate: workerRate, orders: drained, paid, failed: drainBought.failed, firstError: drainBought.firstError },
    };
  } finally {
    await database.close();
    await service.stop();
    await backoffice.close();
  }
}

/** The options this run was given, the PostgreSQL URL left out. */
function commandLine(): string {
  return process.argv
    .slice(2)
    .map((arg, index, args) => (args[index - 1] === '--postgres' ? '<server url>' : arg))
    .join(' ');
}

async function main(): Promise<void> {
  const pinned = pinLoadGenerator();
  mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
  const startLoad = loadavg().map((n) => n.toFixed(2));
  const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
  const results: EngineResult[] = [];
  try {
    const file = join(ROOT, 'bench', '.tmp', 'checkout.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    results.push(await benchEngine('SQLite', `sqlite:${file}`, ceiling, pinned));
    if (values.postgres) {
      const pg = await freshPostgresDatabase(values.postgres, 'storefront_bench_checkout');
      try {
        results.push(await benchEngine('PostgreSQL', pg.url, ceiling, pinned));
      } finally {
        await pg.drop();
      }
    }
  } finally {
    await ceiling.stop();
    killAllChildren();
  }
  const endLoad = loadavg().map((n) => n.toFixed(2));
  const markdown = renderCheckoutSection(results, {
    date: new Date().toISOString(),
    machine: `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, ${type()} ${release()}`,
    load: `load average (1/5/15 min) ${startLoad.join(' / ')} at the start, ${endLoad.join(' / ')} at the end`,
    pinned,
    command: `npx tsx bench/checkout.ts ${commandLine()}`.trim(),
    options,
  });
  writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'checkout', markdown, ['core', 'catalogue', 'search', 'export', 'basket']);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  killAllChildren();
  console.error(error);
  process.exit(1);
});
