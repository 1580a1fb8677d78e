import { Type, type Static } from '@sinclair/typebox';
import { replaceChildRows, type ChildRows } from './child-rows.js';
import { Code, Position, Store, Translated, lineParser, nameRows, unique } from './fields.js';
import { lineKind } from './kind.js';
import { syncNames } from './names.js';
import { References } from './references.js';
import { inLineTransaction, upsertByCode } from './write.js';

// Curated product lists per store (main page blocks, staff picks): the file's products, in its
// order, replace the list's items.

const ProductListLine = Type.Object(
  {
    code: Code(),
    store: Store,
    active: Type.Optional(Type.Boolean()),
    position: Type.Optional(Position),
    names: Translated(200),
    products: Type.Array(Code('product code'), { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);
type ProductListLine = Static<typeof ProductListLine>;

const ITEMS: ChildRows<'product_list_item', 'product_list_id'> = {
  table: 'product_list_item',
  owner: 'product_list_id',
  compare: ['product_id'],
  orderBy: ['position'],
};

export const productListsKind = lineKind(
  'import product-lists <file.ndjson>  curated product lists of the stores',
  ({ db, clock, log }) => {
    const refs = new References(db);
    return {
      parse: lineParser(ProductListLine, (line) => {
        unique(line.products, 'products');
        return line;
      }),
      async apply(line: ProductListLine) {
        const productIds = await refs.require('product', line.products, 'products');
        const items = productIds.map((product_id, position) => ({ product_id, position }));
        const wanted = { store_code: line.store, is_active: line.active ?? true, position: line.position ?? 0 };
        const names = nameRows(line.names);
        return inLineTransaction(db, log, async (trx) => {
          const written = await upsertByCode(trx, 'product_list', line.code, wanted, clock.now(), async (id, isNew) => {
            const namesChanged = await syncNames.productList(trx, id, names, isNew);
            return (await replaceChildRows(trx, ITEMS, id, items, isNew)) || namesChanged;
          });
          return written.outcome;
        });
      },
    };
  },
);
