// Orders processed per second by one worker on SQLite: `npx tsx bench/order-processing.ts [orders]`.
// Inserts N paid orders of 3 lines (one digital) waiting in PENDING_PROCESSING with their
// order.process jobs (through the test fixture that stands in for checkout), then times one
// worker draining the outbox: each order's processing transaction (stock sold, entitlement, export
// row, mail and hand-off queued), its confirmation mail (written as a file: no SMTP) and its
// hand-off (no back office configured: parked in PENDING_NAV_PROCESSING). Then the same again with
// the processing transaction alone, called in a loop, to show what the outbox adds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { systemClock } from '../src/infra/clock.js';
import { createWorker } from '../src/infra/jobs/worker.js';
import { createMailer } from '../src/infra/mail/mailer.js';
import { processOrder } from '../src/modules/orders/processing/process-order.js';
import { buildJobHandlers } from '../src/worker.js';
import { createProduct } from '../test/helpers/catalogue.js';
import { insertOrder } from '../test/helpers/order-fixtures.js';

const ORDERS = Number(process.argv[2] ?? 2000);

async function seed(database: DatabaseHandle, queueJob: boolean): Promise<number[]> {
  const { db } = database;
  const products = [];
  for (let i = 0; i < 20; i += 1) {
    const code = `BENCH${queueJob ? 'J' : 'D'}${i}`;
    const id = await createProduct(db, { code, type: i % 5 === 0 ? 'EBOOK' : 'BOOK' });
    await db.updateTable('product').set({ web_stock: 1_000_000 }).where('id', '=', id).execute();
    products.push({ productId: id, productCode: code, digital: i % 5 === 0 });
  }
  const ids: number[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    const lines = [products[i % 20]!, products[(i + 7) % 20]!, products[(i + 13) % 20]!].map((p, n) => ({ ...p, digital: n === 0 }));
    const order = await insertOrder(db, { status: 'PENDING_PROCESSING', lines, billingEmail: `bench${i}@example.ee`, queueJob });
    ids.push(order.id);
  }
  return ids;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-orders-'));
  try {
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`, MAIL_DIR: join(dir, 'mail'), LOG_LEVEL: 'silent' });
    const database = createDatabase(config.databaseUrl);
    await migrateToLatest(database);
    const log = pino({ level: 'silent' });
    const mailer = createMailer(config.mail, log);
    const worker = createWorker({
      database,
      handlers: buildJobHandlers({ database, config, mailer }),
      log,
      pollIntervalMs: 1000,
      clock: systemClock,
    });

    await seed(database, true);
    let started = performance.now();
    const jobs = await worker.drain();
    const drainSeconds = (performance.now() - started) / 1000;
    const parked = await database.db
      .selectFrom('customer_order')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'PENDING_NAV_PROCESSING')
      .executeTakeFirstOrThrow();
    if (Number(parked.n) !== ORDERS) throw new Error(`expected ${ORDERS} processed orders, found ${parked.n}`);

    const ids = await seed(database, false);
    started = performance.now();
    for (const id of ids) await processOrder(database.db, id, Date.now());
    const directSeconds = (performance.now() - started) / 1000;

    console.log(`orders: ${ORDERS} of 3 lines; one worker on SQLite (file, WAL)`);
    console.log(
      `worker drain (process + mail to file + hand-off): ${jobs} jobs in ${drainSeconds.toFixed(2)} s = ${(ORDERS / drainSeconds).toFixed(0)} orders/s`,
    );
    console.log(`processing transaction alone: ${(ORDERS / directSeconds).toFixed(0)} orders/s`);
    mailer.close();
    await database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
