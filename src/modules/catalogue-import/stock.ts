import { Type, type Static } from '@sinclair/typebox';
import { refreshWebStock } from '../catalogue/index.js';
import { Code, lineParser } from './fields.js';
import type { ImportDeps, LineImporter } from '../../infra/import/index.js';
import { lineKind } from './kind.js';
import { productChanged } from './product-events.js';
import { References } from './references.js';
import { requireSupplierProduct, type LineScope } from './line-scope.js';
import { inLineTransaction, type Outcome } from './write.js';
import { findShopStock, insertShopStock, stampStockChange, updateShopStock } from './stock.repository.js';

// Stock per product and shop. Rows are updates: a product or shop the file does not name keeps
// its stock. product.web_stock follows each changed row in the same transaction.

const StockLine = Type.Object(
  { product: Code('product code'), shop: Code('shop code'), quantity: Type.Integer({ minimum: 0, maximum: 2_000_000_000 }) },
  { additionalProperties: false },
);
type StockLine = Static<typeof StockLine>;

export const stockKind = lineKind('import stock <file.ndjson>          stock per product and shop (web stock follows)', (deps) =>
  stockLines(deps, {}),
);

/** The stock feed's lines; with a supplier in `scope`, only that supplier's products. */
export function stockLines({ db, clock, log }: ImportDeps, scope: LineScope): LineImporter<StockLine> {
  const refs = new References(db);
  return {
    parse: lineParser(StockLine, (line) => line),
    async apply(line: StockLine) {
      const productId = await refs.requireOne('product', line.product, 'product');
      await requireSupplierProduct(db, productId, line.product, scope);
      const shopId = await refs.requireOne('shop', line.shop, 'shop');
      return inLineTransaction(db, log, async (trx): Promise<Outcome> => {
        const now = clock.now();
        let stored = await findShopStock(trx, productId, shopId);
        // The other import's line (the back office's or the supplier's) may insert the row between
        // this read and the insert: then it is read again (committed by now) and updated.
        if (!stored && !(await insertShopStock(trx, productId, shopId, line.quantity, now))) {
          stored = await findShopStock(trx, productId, shopId);
        }
        if (stored?.quantity === line.quantity) return 'unchanged';
        if (stored) await updateShopStock(trx, productId, shopId, line.quantity, now);
        await refreshWebStock(trx, [productId]);
        await stampStockChange(trx, productId, now);
        await productChanged(trx, productId, 'stock', now);
        return stored ? 'updated' : 'created';
      });
    },
  };
}
