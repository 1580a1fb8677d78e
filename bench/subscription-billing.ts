// A billing run over N due subscriptions against the local EveryPay (real HTTP, a merchant-initiated
// charge each): `npx tsx bench/subscription-billing.ts [subscriptions]` (SQLite in a temporary
// directory; DATABASE_URL=postgres://... for PostgreSQL, on a database of its own). Prints charges
// per second and the peak RSS of the process (the local EveryPay runs in it too, so the RSS is an
// upper bound of the shop's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createEveryPayGateway } from '../src/modules/payments/index.js';
import { billDue } from '../src/modules/subscriptions/index.js';
import { startEveryPayServer } from '../test/helpers/everypay-server.js';

const COUNT = Number(process.argv[2] ?? 1000);
const BATCH = 1000;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-billing-'));
  const database = createDatabase(process.env.DATABASE_URL ?? `sqlite:${join(dir, 'bench.sqlite')}`);
  const everypay = await startEveryPayServer();
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
    const token = (await gateway.fetchStatus(saving.reference))!.card!.token;
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
    const report = await billDue(db, { everypay: gateway }, Date.now());
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    console.log(
      JSON.stringify({
        engine: database.engine,
        subscriptions: COUNT,
        report,
        seconds: Math.round(seconds * 100) / 100,
        chargesPerSecond: Math.round((report.charged / seconds) * 10) / 10,
        peakRssMb: Math.round(peakRss / 1_048_576),
      }),
    );
  } finally {
    await everypay.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
