import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadItem, type DownloadWorld } from './helpers.js';

// A link's file read from its row whose bytes are gone from the file store when the answer opens them:
// an operator's new upload of the format committed and deleted the old key between the two (or the
// bytes were lost). The answer is a 503 in the error shape, with none of a download's headers (a
// browser saved a `Content-Disposition: attachment` error as the book), and counts no download and
// spends none of the link: tried again, the same link serves the file the row names now.

let world: DownloadWorld;
let item: DownloadItem;

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '2', DOWNLOAD_LINK_BUDGET: '1' });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', randomBytes(30_000))).statusCode).toBe(200);
  item = (await downloads(world, world.customer))[0]!;
});

afterAll(async () => {
  await world?.close();
});

/** Deletes the stored bytes the item's row names, as the replacing upload does after its commit. */
async function loseStoredBytes(): Promise<void> {
  const row = await world.t.database.db
    .selectFrom('product_file')
    .select('storage_key')
    .where('id', '=', Number(item.id.split('-')[1]))
    .executeTakeFirstOrThrow();
  rmSync(join(world.fileDir, row.storage_key));
}

const used = async () => (await downloads(world, world.customer)).find((each) => each.id === item.id)!.downloadsUsed;

describe("a link whose file's bytes are gone from the store", () => {
  it('answers 503 without the headers of a download, counting and spending nothing', async () => {
    const path = await linkPath(world, world.customer, item.id);
    await loseStoredBytes();
    for (const headers of [{}, { range: 'bytes=0-99' }] as Array<Record<string, string>>) {
      const response = await get(world, path, {}, headers);
      expect(response.statusCode, JSON.stringify(headers)).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      for (const header of ['content-disposition', 'etag', 'accept-ranges', 'content-range'])
        expect(response.headers[header], header).toBeUndefined();
      const head = await world.t.app.inject({ method: 'HEAD', url: path, headers });
      expect(head.statusCode, `HEAD ${JSON.stringify(headers)}`).toBe(503);
    }
    expect(await used()).toBe(0);

    // The operator's upload that replaced it: the same link now serves the new file whole (a budget of one file).
    const fresh = randomBytes(20_000);
    expect((await upload(world, world.ebooks[0]!.code, 'EPUB', fresh)).statusCode).toBe(200);
    const served = await get(world, path);
    expect(served.statusCode, served.body).toBe(200);
    expect(served.rawPayload.equals(fresh)).toBe(true);
    expect(await used()).toBe(1);
  });
});
