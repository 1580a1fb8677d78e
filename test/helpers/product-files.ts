import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

/**
 * Gives each downloadable product (e-book, audiobook) a file of the format named beside it, 1,000
 * random bytes, as the operator does: PUT /admin/product-files/{code}/{format} with an operator's
 * API key, each answered 200. What an order of the product then lets its buyer download.
 */
export async function uploadProductFiles(
  t: Pick<TestApp, 'app' | 'database'>,
  operatorKey: string,
  files: ReadonlyArray<readonly [productId: number, format: string]>,
): Promise<void> {
  for (const [productId, format] of files) {
    const { code } = await t.database.db.selectFrom('product').select('code').where('id', '=', productId).executeTakeFirstOrThrow();
    const uploaded = await t.app.inject({
      method: 'PUT',
      url: `/admin/product-files/${code}/${format}`,
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
      payload: randomBytes(1_000),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
  }
}
