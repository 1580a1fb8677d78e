import { emitEvent, productStream } from '../events/index.js';
import type { Db } from '../../db/database.js';
import { productSnapshot } from './products.repository.js';

// Product events for partner integrations (modules/events), written in the transaction of the
// change: what a marketing platform shows of a product (its name, price, stock and whether it is sold).

/** A product's `product.changed` event, with its state after the change. */
export async function productChanged(trx: Db, productId: number, change: 'feed' | 'prices' | 'stock', now: number): Promise<void> {
  const product = await productSnapshot(trx, productId);
  if (!product) return;
  await emitEvent(
    trx,
    {
      type: 'product.changed',
      stream: productStream(product.code),
      data: {
        change,
        code: product.code,
        ean: product.ean,
        name: product.name,
        active: Boolean(product.is_active),
        shopPrice: product.shop_price_cents / 100,
        originalPrice: product.original_price_cents === null ? null : product.original_price_cents / 100,
        availability: product.availability,
        webStock: product.web_stock,
      },
    },
    now,
  );
}

export async function productsDeactivated(trx: Db, codes: readonly string[], now: number): Promise<void> {
  for (const code of codes) await emitEvent(trx, { type: 'product.deactivated', stream: productStream(code), data: { code } }, now);
}
