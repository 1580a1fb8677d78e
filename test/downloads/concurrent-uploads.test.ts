import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTableHeld } from '../helpers/lock-waits.js';
import { createDownloadWorld, upload, type DownloadWorld } from './helpers.js';

// The same file uploaded twice at once (a double click, a client's retry over a slow upload): each
// request stores its bytes under a key of its own, and the one whose row is written last replaces the
// other's. The other's bytes must go with it: before, both requests read the product's row before
// either wrote it (PostgreSQL), the second then deleted the bytes of the file before both and kept
// none of the first's, which stayed in the file store with no row naming them (up to 4 GB a file).
// On PostgreSQL the product_file table is held until both have read, as the race has it; SQLite runs
// one write transaction at a time, where this holds already.

let world: DownloadWorld;
beforeAll(async () => {
  world = await createDownloadWorld({}, 2);
}, 60_000);
afterAll(() => world?.close());

/** The files in the file store under the product's folder. */
const storedFiles = (productId: number) => {
  const dir = join(world.fileDir, 'products', String(productId));
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

async function uploadTwiceAtOnce(code: string) {
  const body = randomBytes(700);
  const answers = await withTableHeld(world.t.database.db, 'product_file', () =>
    Promise.all([upload(world, code, 'PDF', body, '', true), upload(world, code, 'PDF', body, '', true)]),
  );
  for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
  await world.t.drainJobs();
  return answers.map((answer) => answer.json() as { id: number });
}

async function rowsOf(productId: number) {
  return world.t.database.db.selectFrom('product_file').select(['id', 'storage_key']).where('product_id', '=', productId).execute();
}

describe('PUT /admin/product-files twice at once', () => {
  it('replacing a file: one row, and only its bytes are left in the store', async () => {
    const { id, code } = world.ebooks[0]!;
    const first = await upload(world, code, 'PDF', randomBytes(500));
    expect(first.statusCode, first.body).toBe(200);
    await uploadTwiceAtOnce(code);
    const rows = await rowsOf(id);
    expect(rows).toHaveLength(1);
    expect(storedFiles(id)).toEqual([rows[0]!.storage_key.split('/').at(-1)]);
  });

  it("a product's first file: one row, and only its bytes are left in the store", async () => {
    const { id, code } = world.ebooks[1]!;
    expect(await rowsOf(id)).toEqual([]);
    const [one, two] = await uploadTwiceAtOnce(code);
    expect(one!.id).toBe(two!.id);
    const rows = await rowsOf(id);
    expect(rows).toHaveLength(1);
    expect(storedFiles(id)).toEqual([rows[0]!.storage_key.split('/').at(-1)]);
  });
});
