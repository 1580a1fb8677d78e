import { Type, type Static } from '@sinclair/typebox';
import { refreshWebStock } from '../catalogue/index.js';
import { Code, Email, Line, Name, Position, Translated, TranslatedText, lineParser, nameRows } from './fields.js';
import { lineKind } from './kind.js';
import { syncNames } from './names.js';
import { chunks, inLineTransaction, upsertByCode, type Outcome, type Trx } from './write.js';
import { productChanged } from './product-events.js';
import { lockedWebStock, stampStockChange, stockedProductIds } from './stock.repository.js';

// Physical shops. Whether a shop's stock counts as web stock (and whether it is open at all)
// feeds product.web_stock, so a change of either flag recounts the products the shop stocks, and
// each product whose web stock that changed gets its product.changed event, as a stock line's. A shop
// not listed (a web warehouse, an office) keeps its stock and web stock but is no shop to shoppers.

const Optional = (maxLength: number) => Type.Optional(Type.Union([Line(maxLength), Type.Null()]));

const ShopLine = Type.Object(
  {
    code: Code(),
    names: Translated(200),
    openingHours: Type.Optional(TranslatedText(500)),
    city: Name(100),
    address: Optional(300),
    phone: Optional(30),
    email: Type.Optional(Type.Union([Email(), Type.Null()])),
    webStock: Type.Boolean(),
    active: Type.Optional(Type.Boolean()),
    listed: Type.Optional(Type.Boolean()),
    position: Type.Optional(Position),
  },
  { additionalProperties: false },
);
type ShopLine = Static<typeof ShopLine>;

export const shopsKind = lineKind(
  'import shops <file.ndjson>          physical shops (and whose stock is web stock)',
  ({ db, clock, log }) => ({
    parse: lineParser(ShopLine, (line) => line),
    apply: (line: ShopLine) =>
      inLineTransaction(db, log, async (trx): Promise<Outcome> => {
        const now = clock.now();
        const wanted = {
          city: line.city,
          address: line.address ?? null,
          phone: line.phone ?? null,
          email: line.email ?? null,
          web_stock: line.webStock,
          is_active: line.active ?? true,
          is_listed: line.listed ?? true,
          position: line.position ?? 0,
        };
        const names = nameRows(line.names, line.openingHours);
        const { id, outcome, changed } = await upsertByCode(trx, 'shop', line.code, wanted, now, (id, isNew) =>
          syncNames.shop(trx, id, names, isNew),
        );
        if (changed.web_stock !== undefined || changed.is_active !== undefined) await recountStockedProducts(trx, id, now);
        return outcome;
      }),
  }),
);

async function recountStockedProducts(trx: Trx, shopId: number, now: number): Promise<void> {
  for (const part of chunks(await stockedProductIds(trx, shopId))) {
    const before = await lockedWebStock(trx, part);
    await refreshWebStock(trx, part);
    const after = await lockedWebStock(trx, part);
    for (const [productId, webStock] of after) {
      if (before.get(productId) === webStock) continue;
      await stampStockChange(trx, productId, now);
      await productChanged(trx, productId, 'stock', now);
    }
  }
}
