import type { DatabaseHandle } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared.js';
import type { CampaignPriceTable, PersonRole } from '../catalogue.tables.js';
import { toBases } from './product-card.mapper.js';
import { PRODUCT_BASE_COLUMNS, type BaseRows, type ProductBase } from './product-card.types.js';
import { extrasRow, type ExtrasParts, type ExtrasRow } from './product-details.repository.js';

// The product page's cold read (issue 19): the product row, its publisher, series and physical
// edition, and its document (product_document, kept by the triggers of migration 2026_11_24_1600)
// in one indexed read, instead of a dozen queries. What depends on the caller, the store or the
// language (visibility, price, category and shop names) is worked out from it per request.

/** The document's JSON, as the migration's documentBody() writes it. */
interface ProductDocument {
  s: string[];
  pe: Array<[number, string, string, PersonRole]>;
  ac: string[];
  c: number[];
  im: Array<[string, number | null, number | null]>;
  cp: Array<[string, CampaignPriceTable['customer_kind'], number, number | null, number | null]>;
  eb: [number, string, string] | null;
}

/** A product as its page reads it: the card's base for the store and the extras' inputs but the shops. */
export interface ProductPageRow {
  base: ProductBase;
  extrasRow: ExtrasRow;
  parts: Omit<ExtrasParts, 'shopRows'>;
}

/** The product's page row in the store; undefined when there is no such product or it has no document. */
export type ProductPageReader = (storeCode: string, id: number) => Promise<ProductPageRow | undefined>;

const BASE_SELECTION = PRODUCT_BASE_COLUMNS.map((column) => `p.${column}` as const);

export function productPageReader(database: DatabaseHandle): ProductPageReader {
  const read = preparedQuery(database, (db, id: number) =>
    extrasRow(db)
      .innerJoin('product_document as d', 'd.product_id', 'p.id')
      .select([...BASE_SELECTION, 'd.body'])
      .where('p.id', '=', id),
  );
  return async (storeCode, id) => {
    const [row] = await read(id);
    if (!row) return undefined;
    const document = JSON.parse(row.body) as ProductDocument;
    const rows: BaseRows = {
      products: [row],
      inStore: document.s.includes(storeCode) ? [{ product_id: id }] : [],
      authors: document.pe
        .filter(([, , , role]) => role === 'AUTHOR')
        .map(([personId, code, name]) => ({ product_id: id, id: personId, code, name })),
      campaigns: document.cp
        .filter(([store]) => store === storeCode)
        .map(([, kind, priceCents, validFrom, validTo]) => ({
          product_id: id,
          customer_kind: kind,
          price_cents: priceCents,
          valid_from: validFrom,
          valid_to: validTo,
        })),
    };
    return {
      base: toBases(rows).get(id)!,
      extrasRow: row,
      parts: {
        codes: document.ac.map((code) => ({ code })),
        people: document.pe.map(([personId, code, name, role]) => ({ id: personId, code, name, role })),
        categoryIds: document.c,
        imageRows: document.im.map(([url, width, height]) => ({ url, width, height })),
        ebookRow: document.eb === null ? null : { id: document.eb[0], code: document.eb[1], name: document.eb[2] },
      },
    };
  };
}
