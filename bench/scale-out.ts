// Scale-out on PostgreSQL, proven (issue 18): a local primary with a streaming replica, two API
// processes and two workers on them, a mixed load (browse, search, register, basket, purchase)
// sent to both APIs in turn, and afterwards the checks: no job ran twice, no mail was sent twice,
// the database-backed rate limit held across the two APIs, every order was processed once, and the
// replica served reads. Exits 1 when a check failed.
//
//   npm run build && npx tsx bench/scale-out.ts [--seconds 60] [--shoppers 16] [--products 300]
//
// Needs Debian's postgresql package (server binaries under /usr/lib/postgresql); the clusters live
// in a temporary directory and are removed afterwards. Writes `<!-- bench:scale-out -->` of
// bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../src/db/database.js';
import { startSmtpCatcher } from '../test/helpers/smtp.js';
import {
  checkoutForm,
  fillBaskets,
  freshPostgresDatabase,
  importCourier,
  prepareShop,
  startBackoffice,
  startWorker,
} from './lib/checkout-shop.js';
import { killAllChildren, startChild, type RunningChild } from './lib/child.js';
import { p99, runMixedLoad, type ActionKind } from './lib/mixed-load.js';
import { waitForStatus } from './lib/order-progress.js';
import { startPrimaryWithReplica, waitForReplica, withDatabase } from './lib/pg-replica.js';
import { writeResultsSection } from './lib/results-file.js';
import { jobsRanOnce, mailsOnce, ordersProcessedOnce, rateLimitHeld, type Check } from './lib/scale-out-checks.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DATABASE = 'storefront_scale';
/** The sign-in limit per address the run sets, and probes from one address across both APIs. */
const AUTH_LIMIT = 25;
const DRAIN_TIMEOUT_MS = 180_000;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    shoppers: { type: 'string', default: '16' },
    products: { type: 'string', default: '300' },
    baskets: { type: 'string', default: '400' },
  },
});
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Commits on the replica's copy of the database so far (read-only transactions count there). */
async function replicaTransactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('select xact_commit::text as n from pg_stat_database where datname = $1', [
      DATABASE,
    ]);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Searches no process has answered before (a word made up for each), sent after the load from
 * addresses that never wrote, so no cache and no read-your-writes stickiness hides where they
 * read: each must raise the replica's transactions. (The load's own product pages and searches are
 * mostly answered by the per-process caches, so its replica count is reported, not judged. The
 * APIs' lag checks also read there, a couple a second, far fewer than the probe's searches.)
 */
const PROBE_SEARCHES = 100;
async function probeReplicaReads(apis: readonly string[], replicaUrl: string, loadReads: number, loadRequests: number): Promise<Check> {
  const before = await replicaTransactions(replicaUrl);
  const started = Date.now();
  let failed = 0;
  for (let i = 0; i < PROBE_SEARCHES; i += 1) {
    const word = `probe${randomBytes(6).toString('hex')}`;
    const response = await fetch(`${apis[i % apis.length]}/product/search?q=${word}`, {
      headers: { store: 'WEB', 'x-forwarded-for': `10.7.${i >> 8}.${i & 255}` },
    });
    await response.arrayBuffer();
    if (response.status !== 200) failed += 1;
  }
  const reads = (await replicaTransactions(replicaUrl)) - before;
  return {
    name: 'the replica served the catalogue reads',
    passed: failed === 0 && reads >= PROBE_SEARCHES,
    detail:
      `${PROBE_SEARCHES} searches of new words in ${Date.now() - started} ms: ${reads} transactions on the replica` +
      `${failed ? `, ${failed} not answered 200` : ''}; during the load ${loadReads} for ${loadRequests} product pages and searches, most answered from the caches`,
  };
}

/** Sign-in attempts with a wrong password from one client address, alternating between the APIs. */
async function probeRateLimit(apis: readonly string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < AUTH_LIMIT * 3; i += 1) {
    const response = await fetch(`${apis[i % apis.length]}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', store: 'WEB', 'x-forwarded-for': '10.9.9.9' },
      body: JSON.stringify({ email: `nobody-${i}@example.ee`, password: 'wrong password 1', web_store_nav_code: 'WEB' }),
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

async function waitForQueue(databaseUrl: string): Promise<void> {
  const database = createDatabase(databaseUrl);
  try {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      const row = await database.db
        .selectFrom('job')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['pending', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0 || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await database.close();
  }
}

async function main(): Promise<number> {
  const cluster = await startPrimaryWithReplica();
  const apis: RunningChild[] = [];
  const workers: { stop: () => Promise<void> }[] = [];
  const smtp = await startSmtpCatcher();
  const backoffice = await startBackoffice();
  try {
    const { url: databaseUrl } = await freshPostgresDatabase(cluster.primaryUrl, DATABASE);
    const replicaUrl = withDatabase(cluster.replicaUrl, DATABASE);
    log(`primary and replica up; preparing ${values.products} books`);
    const shop = await prepareShop(databaseUrl, Number(values.products));
    const env = {
      DATABASE_URL: databaseUrl,
      DATABASE_REPLICA_URL: replicaUrl,
      LOG_LEVEL: 'warn',
      BASE_PATH: '',
      TEST_GATEWAY: 'on',
      WORKER: 'off',
      TRUST_PROXY: 'loopback',
      SMTP_URL: smtp.url,
      AUTH_RATE_LIMIT_PER_IP: `${AUTH_LIMIT}/10m`,
      CHECKOUT_RATE_LIMIT_PER_IP: '100000000/1m',
      BASKET_RATE_LIMIT_PER_IP: '100000000/1m',
      BASKET_WRITE_RATE_LIMIT_PER_IP: '100000000/1m',
      // Every purchase's return (and callback) comes from the one load address.
      PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000000/1m',
      BACKOFFICE_ORDERS_URL: backoffice.url,
      BACKOFFICE_ORDERS_SECRET: 'bench-backoffice-secret-0123456789abcdef',
    };
    for (let i = 0; i < 2; i += 1) {
      apis.push(await startChild({ script: 'dist/main.js', args: ['serve'], env, readyPath: '/site/health' }, ROOT));
    }
    const bases = apis.map((api) => api.baseUrl);
    // The workers name the first API's pages in what they send (PUBLIC_URL is unset).
    for (let i = 0; i < 2; i += 1) workers.push(startWorker({ ...env, PORT: new URL(bases[0]!).port }, ROOT, false));
    const form = checkoutForm(await importCourier(bases[0]!, shop.apiKey, databaseUrl));
    const baskets = await fillBaskets(bases[1]!, shop.productIds, Number(values.baskets), 3);
    await waitForReplica(cluster);
    log(`two APIs and two workers up; ${baskets.length} baskets filled; load for ${values.seconds} s`);

    const replicaBefore = await replicaTransactions(replicaUrl);
    const [load, probe] = await Promise.all([
      runMixedLoad({
        apis: bases,
        productIds: shop.productIds,
        baskets,
        form,
        shoppers: Number(values.shoppers),
        seconds: Number(values.seconds),
      }),
      probeRateLimit(bases),
    ]);
    const replicaReads = (await replicaTransactions(replicaUrl)) - replicaBefore;
    log(`load done; draining the queue`);
    const database = createDatabase(databaseUrl);
    let checks: Check[];
    try {
      await waitForStatus(
        database.db,
        load.orders.map((o) => o.id),
        ['COMPLETED', 'PENDING_NAV_PROCESSING'],
        DRAIN_TIMEOUT_MS,
      );
      await waitForQueue(databaseUrl);
      checks = [
        await jobsRanOnce(database.db),
        mailsOnce(
          smtp.mails,
          load.registered,
          load.orders.map((o) => o.email),
        ),
        await ordersProcessedOnce(
          database.db,
          load.orders.map((o) => o.id),
          backoffice.deliveries,
        ),
        rateLimitHeld(probe, AUTH_LIMIT),
        await probeReplicaReads(bases, replicaUrl, replicaReads, load.tallies.browse.done + load.tallies.search.done),
      ];
    } finally {
      await database.close();
    }
    const failedRequests = Object.values(load.tallies).reduce((n, t) => n + t.failed, 0);
    checks.push({
      name: 'no request failed',
      passed: failedRequests === 0,
      detail: `${failedRequests} failed${failedRequests ? `; first: ${Object.values(load.tallies).find((t) => t.firstError)?.firstError}` : ''}`,
    });
    for (const check of checks) log(`${check.passed ? 'PASS' : 'FAIL'} ${check.name}: ${check.detail}`);
    writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'scale-out', render(load, checks), []);
    return checks.every((c) => c.passed) ? 0 : 1;
  } finally {
    for (const worker of workers) await worker.stop();
    for (const api of apis) await api.stop();
    await smtp.close();
    await backoffice.close();
    cluster.stop();
  }
}

function render(load: Awaited<ReturnType<typeof runMixedLoad>>, checks: Check[]): string {
  const rows = (Object.entries(load.tallies) as [ActionKind, (typeof load.tallies)[ActionKind]][]).map(
    ([kind, t]) => `| ${kind} | ${t.done} | ${(t.done / load.seconds).toFixed(1)} | ${p99(t).toFixed(0)} | ${t.failed} |`,
  );
  return `## Scale-out on PostgreSQL (primary + streaming replica, 2 APIs, 2 workers)

${new Date().toISOString().slice(0, 16)}Z, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average at the end ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}; \`npx tsx bench/scale-out.ts ${process.argv.slice(2).join(' ')}\`. Every process unpinned on the same machine: the
numbers show the checks held under concurrency, not the capacity of two machines.

| action | done | per second | p99 ms | failed |
|---|---|---|---|---|
${rows.join('\n')}

| check | held | detail |
|---|---|---|
${checks.map((c) => `| ${c.name} | ${c.passed ? 'yes' : '**no**'} | ${c.detail} |`).join('\n')}`;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    killAllChildren();
    log(String(err instanceof Error ? (err.stack ?? err) : err));
    process.exit(1);
  },
);
