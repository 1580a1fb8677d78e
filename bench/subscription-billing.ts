// A billing run over N due subscriptions against the local EveryPay (real HTTP, a merchant-initiated
// charge each), the way `subscription bill` runs it (billDue with its pool):
//
//   npx tsx bench/subscription-billing.ts [--subscriptions 100000] [--concurrency 1,4] [--write]
//
// Each pool size runs in a child process of its own on a fresh SQLite database in a temporary
// directory (DATABASE_URL=postgres://... for PostgreSQL, on a database of its own, one pool size a
// run), so each peak RSS is its own. Prints charges per second and the peak RSS of the process (the
// local EveryPay runs in it too, with its request log off, so the RSS is an upper bound of the
// shop's); `--write` also writes its section of bench/RESULTS.md (`<!-- bench:subscription-billing -->`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, type } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createEveryPayGateway } from '../src/modules/payments/index.js';
import { newSealingKeyEntry, parseSealingKeys, type SealingKey } from '../src/infra/sealed-secret.js';
import { billDue, cardTokensFor } from '../src/modules/subscriptions/index.js';
import { startEveryPayServer } from '../test/helpers/everypay-server.js';
import { writeResultsSection } from './lib/results-file.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '1,4' },
    write: { type: 'boolean', default: false },
    // Internal: one measured run in this process, its result as one JSON line.
    child: { type: 'boolean', default: false },
  },
});
const COUNT = Number(values.subscriptions);
const BATCH = 1000;

interface RunResult {
  engine: string;
  concurrency: number;
  subscriptions: number;
  report: Awaited<ReturnType<typeof billDue>>;
  seconds: number;
  chargesPerSecond: number;
  peakRssMb: number;
}

async function measure(concurrency: number): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-billing-'));
  const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${join(dir, 'bench.sqlite')}`;
  const database = createDatabase(databaseUrl);
  // A key of the run's own: the cards are stored sealed, as the service stores them, so the run opens each token it charges.
  const cardTokenKeys = (parseSealingKeys(newSealingKeyEntry('bench')) as { keys: SealingKey[] }).keys;
  const cardTokens = cardTokensFor({ databaseUrl, cardTokenKeys }, console);
  const everypay = await startEveryPayServer({ recordRequests: false });
  try {
    await migrateToLatest(database);
    const { db } = database;
    const gateway = createEveryPayGateway({
      apiUrl: everypay.url,
      apiUsername: everypay.apiUsername,
      apiSecret: everypay.apiSecret,
      accountName: everypay.accountName,
      timeoutMs: 10_000,
    });
    // One card saved the real way; every subscription of the bench is charged through its token.
    const saving = await gateway.createPayment({
      orderReference: `BENCHCARD${Date.now()}`,
      amountCents: 0,
      currency: 'EUR',
      customerEmail: 'bench@example.ee',
      customerIp: null,
      locale: 'et',
      returnUrl: 'http://127.0.0.1/',
      callbackUrl: 'http://127.0.0.1/',
      idempotencyKey: `bench-${Date.now()}`,
      requestToken: true,
    });
    await everypay.settle(saving.reference);
    const token = cardTokens.seal((await gateway.fetchStatus(saving.reference))!.card!.token);
    const now = Date.now();
    const plan = await db
      .insertInto('subscription_plan')
      .values({
        code: `BENCH${now}`,
        kind: 'AUDIO_UNLIMITED',
        titles: '{"et":"Bench"}',
        credits_per_month: null,
        shelf_size: null,
        price_cents: 1299,
        trial_days: 0,
        stores: 'WEB',
        position: 0,
        is_active: true,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let start = 0; start < COUNT; start += BATCH) {
      const size = Math.min(BATCH, COUNT - start);
      const cards = await db
        .insertInto('subscription_card')
        .values(
          Array.from({ length: size }, (_, i) => ({
            client_account_id: start + i + 1,
            store_code: 'WEB',
            gateway: 'everypay',
            state: 'ACTIVE' as const,
            order_reference: `BC${now}-${start + i}`,
            payment_reference: null,
            token,
            brand: 'master_card',
            last_four: '1002',
            expiry_month: 12,
            expiry_year: 2030,
            is_default: true,
            created_at: now,
            updated_at: now,
          })),
        )
        .returning('id')
        .execute();
      await db
        .insertInto('subscription')
        .values(
          cards.map((card, i) => ({
            client_account_id: start + i + 1,
            user_id: start + i + 1,
            store_code: 'WEB',
            plan_id: Number(plan.id),
            status: 'ACTIVE' as const,
            live_key: `${start + i + 1}:AUDIO`,
            card_id: Number(card.id),
            trial: false,
            period_number: 1,
            period_start: now - 31 * 86_400_000,
            period_end: now - 1000,
            next_plan_id: null,
            cancel_at_period_end: false,
            failed_attempts: 0,
            next_attempt_at: null,
            created_at: now,
            updated_at: now,
            ended_at: null,
          })),
        )
        .execute();
    }
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const report = await billDue(db, { everypay: gateway }, Date.now(), { cardTokens, concurrency });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return {
      engine: database.engine,
      concurrency,
      subscriptions: COUNT,
      report,
      seconds: Math.round(seconds * 100) / 100,
      chargesPerSecond: Math.round((report.charged / seconds) * 10) / 10,
      peakRssMb: Math.round(peakRss / 1_048_576),
    };
  } finally {
    await everypay.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const pools = values.concurrency.split(',').map(Number);
  if (values.child) {
    process.stdout.write(`${JSON.stringify(await measure(pools[0]!))}\n`);
    return;
  }
  const uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const startLoad = loadavg()[0]!.toFixed(2);
  const results: RunResult[] = [];
  for (const pool of pools) {
    process.stderr.write(`billing ${COUNT} subscriptions, ${pool} at once\n`);
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', '--subscriptions', String(COUNT), '--concurrency', String(pool)],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
    );
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as RunResult;
    process.stderr.write(`${JSON.stringify(result)}\n`);
    results.push(result);
  }
  const fmt = (n: number) => n.toLocaleString('en-US');
  const markdown = [
    '## Subscriptions: a billing run over due subscriptions',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, ${type()} ${release()}; load average ${startLoad} at the start (shared with other work: the numbers are noisy)`,
    `- \`uptime\` at the start: \`${uptime}\``,
    `- Command: \`npx tsx bench/subscription-billing.ts --subscriptions ${COUNT} --concurrency ${values.concurrency}\``,
    '',
    `${fmt(COUNT)} ACTIVE subscriptions whose period ended, each with a saved card, billed by one run of \`billDue\` (what`,
    '`subscription bill` and the worker run) against the local EveryPay over real HTTP: per subscription a committed',
    'charge row, a merchant-initiated charge, and the outcome applied. One process per pool size (service and local',
    'EveryPay together, so the RSS is an upper bound of the service alone); SQLite unless the engine says otherwise.',
    '',
    '| Engine | Pool (`SUBSCRIPTION_BILLING_CONCURRENCY`) | subscriptions | charged | failed | pending | seconds | charges/s | peak RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${r.concurrency} | ${fmt(r.subscriptions)} | ${fmt(r.report.charged)} | ${r.report.failed} | ${r.report.pending} | ${r.seconds} | ${fmt(r.chargesPerSecond)} | ${r.peakRssMb} |`,
    ),
    '',
  ].join('\n');
  if (values.write)
    writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'subscription-billing', markdown, [
      'core',
      'catalogue',
      'search',
      'export',
      'basket',
      'wishlist',
      'gift-cards',
      'subscription-billing',
    ]);
  process.stdout.write(`${markdown}\n`);
}

await main();
