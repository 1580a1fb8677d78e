import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertProduct, ymdHis } from './fixtures.js';

// The campaigns feed writes a product's campaign price, which the export's product item shows
// (discountPrice): /product?updatedFrom must find the products whose price it changed. The line
// queues their stamps as jobs (catalogue-import's campaigns.jobs.ts): found once the worker ran them.

let t: TestApp;
let authorization: string;
let dir: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const q = (ms: number) => encodeURIComponent(ymdHis(ms));
const items = async (url: string) => (await get(url)).json() as Array<{ code: string; discountPrice: number }>;
const changedSince = async (ms: number) => (await items(`/product?updatedFrom=${q(ms)}`)).map((item) => item.code);
const second = () => Math.floor(Date.now() / 1000) * 1000;
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));

async function importCampaign(prices: Array<{ product: string; price: number }>, active = true) {
  const file = join(dir, `campaigns-${Date.now()}.ndjson`);
  const line = {
    code: 'CAMP-U',
    store: 'WEB',
    active,
    names: { et: 'Kampaania' },
    prices: prices.map((p) => ({ ...p, customerKind: 'RETAIL' })),
  };
  writeFileSync(file, `${JSON.stringify(line)}\n`);
  return importKinds.campaigns!.create({ db: t.database.db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {});
}

/** The campaign line, and the worker's run of the stamps it queued. */
async function importCampaignAndStamp(prices: Array<{ product: string; price: number }>, active = true) {
  await importCampaign(prices, active);
  await t.drainJobs();
}

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  dir = mkdtempSync(join(tmpdir(), 'export-campaigns-'));
  ({ authorization } = await exportUser(t.database.db));
  for (const code of ['CP-1', 'CP-2', 'CP-OTHER']) await insertProduct(t.database.db, { code, createdAt: T0 });
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /product?updatedFrom after the campaigns feed', () => {
  it('finds the products a new campaign prices, not the others', async () => {
    const before = second();
    await importCampaignAndStamp([{ product: 'CP-1', price: 5 }]);
    expect((await items('/product')).find((item) => item.code === 'CP-1')!.discountPrice).toBe(5);
    expect(await changedSince(before)).toEqual(['CP-1']);
  });

  it('finds a product dropped from the campaign and one added; the same line again changes nothing', async () => {
    await nextSecond();
    const before = second();
    await importCampaignAndStamp([{ product: 'CP-2', price: 7 }]);
    expect((await changedSince(before)).sort()).toEqual(['CP-1', 'CP-2']);
    await nextSecond();
    const again = second();
    await importCampaignAndStamp([{ product: 'CP-2', price: 7 }]);
    expect(await changedSince(again)).toEqual([]);
  });

  it('finds the products of a campaign switched off', async () => {
    await nextSecond();
    const before = second();
    await importCampaignAndStamp([{ product: 'CP-2', price: 7 }], false);
    expect((await items('/product')).find((item) => item.code === 'CP-2')!.discountPrice).toBe(20);
    expect(await changedSince(before)).toEqual(['CP-2']);
  });

  it('finds them for a partner who read between the line and its stamps, once the worker ran', async () => {
    await nextSecond();
    const before = second();
    const queuedBefore = await t.database.db.selectFrom('job').select('id').execute();
    await importCampaign([{ product: 'CP-OTHER', price: 3 }]);
    // The new price shows at once; the products it moved are not found yet (no worker ran)...
    expect((await items('/product')).find((item) => item.code === 'CP-OTHER')!.discountPrice).toBe(3);
    expect(await changedSince(before)).toEqual([]);
    // ...and a partner resuming after that read, even from a later second, finds them once it has.
    await nextSecond();
    const resumed = second();
    await t.drainJobs();
    expect((await changedSince(resumed)).sort()).toEqual(['CP-2', 'CP-OTHER']);
    // A stamp job run again (a retry, a worker that lost its claim) moves no stamp back: not one a
    // later write made (here an hour ahead).
    const db = t.database.db;
    const later = Date.now() + 3_600_000;
    await db.updateTable('product').set({ updated_at: later }).where('code', '=', 'CP-2').execute();
    const jobs = await db
      .selectFrom('job')
      .select('id')
      .where('type', '=', 'catalogue-import.campaign-stamps')
      .where('id', 'not in', [0, ...queuedBefore.map((job) => job.id)])
      .execute();
    expect(jobs).toHaveLength(1);
    for (const job of jobs) expect(await retryJob(db, job.id)).toBe(true);
    await t.drainJobs();
    const stamp = async (code: string) =>
      Number((await db.selectFrom('product').select('updated_at').where('code', '=', code).executeTakeFirstOrThrow()).updated_at);
    expect(await stamp('CP-2')).toBe(later);
    expect(await stamp('CP-OTHER')).toBeGreaterThanOrEqual(resumed);
  });
});
