import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkoutBesideWriterWaitingOnX, productsOutOfHeapOrder } from './checkout-beside-bulk-writer.js';
import { fill, setUpShop, type Shop } from './helpers.js';

// A campaign's product stamps are jobs (catalogue-import's campaigns.jobs.ts), each one UPDATE of up
// to 1,000 products. Before a job took those rows in id order first, it could deadlock with a checkout
// (checkout-beside-bulk-writer.ts), a 500 for the shopper.

let t: TestApp;
let shop: Shop;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  dir = mkdtempSync(join(tmpdir(), 'checkout-stamps-'));
  if (engine === 'postgres') shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = async (id: number) =>
  (await t.database.db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;

describe.skipIf(engine !== 'postgres')('a checkout while a campaign stamp job runs', () => {
  it('is not ended on a deadlock: the job takes its products in id order', async () => {
    const db = t.database.db;
    const { a, b, x } = await productsOutOfHeapOrder(t, shop);
    const file = join(dir, 'campaign.ndjson');
    const prices = await Promise.all([a, b, x].map(async (id) => ({ product: await codeOf(id), customerKind: 'RETAIL', price: 5 })));
    writeFileSync(file, JSON.stringify({ code: 'STAMP-ORDER', store: 'WEB', names: { et: 'Kampaania' }, prices }) + '\n');
    expect(
      (await importKinds.campaigns!.create({ db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {})).outcomes,
    ).toEqual({
      created: 1,
    });
    const who = await fill(t, {}, [
      [a, 1],
      [b, 1],
    ]);

    const answer = await checkoutBesideWriterWaitingOnX(t, shop, who, { a, b, x }, 'the stamp job', () => t.drainJobs());
    expect(answer.statusCode, answer.body).toBe(200);
    const stamps = await db.selectFrom('job').select('status').where('type', '=', 'catalogue-import.campaign-stamps').execute();
    expect(stamps.map((job) => job.status)).toEqual(['done']);
  }, 60_000);
});
