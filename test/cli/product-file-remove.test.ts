import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { uploadProductFiles } from '../helpers/product-files.js';
import { rowCount } from '../helpers/table-counts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// `product-file remove` of a format the product has no file of printed "nothing was removed" and
// exited 0, which a script (or an operator who mistyped the format) cannot tell from a removal. It is
// a thing named that is not there, as the API's 404 and the command's unknown product: exit 1, the
// message alone, nothing changed.

let t: TestApp;
let fileDir: string;
let env: Record<string, string>;
let productId: number;
let code: string;
beforeAll(async () => {
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-product-file-cli-'));
  t = await createTestApp({ sqliteFile: true, env: { FILE_STORE_DIR: fileDir } });
  const db = t.database.db;
  productId = await createProduct(db, { type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' });
  ({ code } = await db.selectFrom('product').select('code').where('id', '=', productId).executeTakeFirstOrThrow());
  await uploadProductFiles(t, await createApiKey(db, 'files', Date.now()), [[productId, 'EPUB']]);
  env = { DATABASE_URL: t.config.databaseUrl, FILE_STORE_DIR: fileDir };
});
afterAll(async () => {
  await t.close();
  rmSync(fileDir, { recursive: true, force: true });
});

const formatsOf = async () =>
  (await t.database.db.selectFrom('product_file').select('format').where('product_id', '=', productId).execute()).map((row) => row.format);

describe('storefront product-file remove', () => {
  it('of a format the product has no file of exits 1 saying nothing was removed, and changes nothing', async () => {
    const jobs = await rowCount(t.database.db, 'job');
    expect(await runCli(['product-file', 'remove', code, 'PDF'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: product-file remove: the product "${code}" has no PDF file; nothing was removed\n`,
    });
    expect(await formatsOf()).toEqual(['EPUB']);
    expect(await rowCount(t.database.db, 'job')).toBe(jobs);
  });

  it('of the file it has removes it, and a second removal finds nothing to remove', async () => {
    const removed = await runCli(['product-file', 'remove', code, 'EPUB'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(new RegExp(`^Removed ${code}'s EPUB file \\(\\d+\\); its holders' list items go through a job\\.\\n$`));
    expect(await formatsOf()).toEqual([]);
    expect(await runCli(['product-file', 'remove', code, 'EPUB'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: product-file remove: the product "${code}" has no EPUB file; nothing was removed\n`,
    });
  });
});
