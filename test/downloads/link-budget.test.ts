import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A link serves at most DOWNLOAD_LINK_BUDGET (3 by default) times its file's size: every request
// spends the bytes it is answered with, ranges, resumed and repeated requests alike. Past that the
// link is a 403 in the error shape, as an expired one, and sends nothing; a download manager or a
// player fetching the file in ranges is served, a link passed around is not an unlimited source of
// copies. The bytes are added by one conditional update: exact under parallel ranged requests.

let world: DownloadWorld;
const SIZE = 4_000;
const file = randomBytes(SIZE);
const en = { 'x-app-language': 'en' };
let id: string;

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '50' });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', file)).statusCode).toBe(200);
  id = (await downloads(world, world.customer))[0]!.id;
});

afterAll(async () => {
  await world?.close();
});

const range = (from: number, to: number) => ({ range: `bytes=${from}-${to}` });
const used = async () => (await downloads(world, world.customer)).find((item) => item.id === id)!.downloadsUsed;
const served = async () =>
  (await world.t.database.db.selectFrom('download_link_use').select(['link_id', 'bytes_served']).execute()).map((row) =>
    Number(row.bytes_served),
  );

describe('the bytes a download link serves', () => {
  it('serves the whole file three times, then answers 403 in the error shape and sends nothing', async () => {
    const before = await used();
    const link = await linkPath(world, world.customer, id);
    for (let copy = 0; copy < 3; copy += 1) {
      const response = await get(world, link);
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(file)).toBe(true);
    }
    const refused = await get(world, link, {}, en);
    expectErrorBody(refused, 403, 'Forbidden');
    expect(refused.json().message).toContain('used up');
    expect(refused.headers['content-disposition']).toBeUndefined();
    // Not even one byte more, and a range past the end still answers 416 (and spends nothing).
    expectErrorBody(await get(world, link, {}, range(0, 0)), 403, 'Forbidden');
    expect((await get(world, link, {}, { range: `bytes=${SIZE}-` })).statusCode).toBe(416);
    // One download counted for the whole link; a new link serves again.
    expect(await used()).toBe(before + 1);
    expect((await get(world, await linkPath(world, world.customer, id))).statusCode).toBe(200);
  });

  it('spends nothing and counts nothing on a range that starts past Number.MAX_SAFE_INTEGER (a 416, not the whole file)', async () => {
    const before = { used: await used(), served: await served() };
    const link = await linkPath(world, world.customer, id);
    for (const start of ['18446744073709551616', '9007199254740992']) {
      const response = await get(world, link, {}, { range: `bytes=${start}-`, ...en });
      expectErrorBody(response, 416, 'Range Not Satisfiable');
      expect(response.headers['content-range']).toBe(`bytes */${SIZE}`);
    }
    expect({ used: await used(), served: await served() }).toEqual(before);
    // The link still serves its whole budget.
    for (let copy = 0; copy < 3; copy += 1) expect((await get(world, link)).statusCode).toBe(200);
  });

  it('serves a file fetched in ranges and fetched again, up to the budget to the byte', async () => {
    const link = await linkPath(world, world.customer, id);
    // 11 ranges of 1000 bytes: 11,000 of the 12,000.
    for (let part = 0; part < 11; part += 1) {
      const from = (part % 4) * 1000;
      const response = await get(world, link, {}, range(from, from + 999));
      expect(response.statusCode, response.body).toBe(206);
      expect(response.rawPayload.equals(file.subarray(from, from + 1000))).toBe(true);
    }
    // The whole file no longer fits; the last 1000 bytes do, exactly, and then nothing.
    expectErrorBody(await get(world, link), 403, 'Forbidden');
    expectErrorBody(await get(world, link, {}, range(0, 1000)), 403, 'Forbidden');
    expect((await get(world, link, {}, { range: 'bytes=-1000' })).statusCode).toBe(206);
    expectErrorBody(await get(world, link, {}, range(0, 0)), 403, 'Forbidden');
  });

  it('lets exactly the budget through of many parallel ranged requests', async () => {
    await world.t.database.db.deleteFrom('download_link_use').execute();
    const link = await linkPath(world, world.customer, id);
    // 30 requests of 500 bytes at once: 24 fit in 12,000 bytes.
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) => get(world, link, {}, range((index % 8) * 500, (index % 8) * 500 + 499))),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 206)).toHaveLength(24);
    expect(statuses.filter((status) => status === 403)).toHaveLength(6);
    expect(await served()).toEqual([3 * SIZE]);
  });
});
