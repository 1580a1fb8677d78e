import { Type, type Static } from '@sinclair/typebox';
import { discountPercent } from '../catalogue/index.js';
import { Code, LineError, Money, cents, lineParser, optionalCents } from './fields.js';
import type { ImportDeps, LineImporter } from '../../infra/import/index.js';
import { lineKind } from './kind.js';
import { productChanged } from './product-events.js';
import { References } from './references.js';
import { requireSupplierProduct, type LineScope } from './line-scope.js';
import { changedColumns, inLineTransaction, isEmpty, type Outcome, type Trx } from './write.js';
import {
  deleteCompanyPrice,
  findCompanyIds,
  findCompanyPrice,
  insertCompanyPrice,
  readProductPrices,
  updateCompanyPrice,
  updateProduct,
} from './prices.repository.js';

// Price updates between feeds: a line changes some prices of one existing product, or sets (or,
// with null, removes) a company's own price for it. discount_percent follows the shop price.

const PriceLine = Type.Object(
  {
    product: Code('product code'),
    shopPrice: Type.Optional(Money),
    originalPrice: Type.Optional(Type.Union([Money, Type.Null()])),
    wholesalePrice: Type.Optional(Type.Union([Money, Type.Null()])),
    vatRate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    company: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'registry code of the company' })),
    price: Type.Optional(Type.Union([Money, Type.Null()])),
  },
  { additionalProperties: false },
);
type PriceLine = Static<typeof PriceLine>;

type PriceRecord =
  | { kind: 'product'; product: string; shop?: number; original?: number | null; wholesale?: number | null; vatRate?: number }
  | { kind: 'company'; product: string; company: string; price: number | null };

const PRODUCT_FIELDS = ['shopPrice', 'originalPrice', 'wholesalePrice', 'vatRate'] as const;

function convert(line: PriceLine): PriceRecord {
  const given = PRODUCT_FIELDS.filter((field) => line[field] !== undefined);
  if (line.company !== undefined) {
    if (given.length > 0) throw new LineError(`/${given[0]}: a company price line has only product, company and price`);
    if (line.price === undefined) throw new LineError('/price: required with company (null removes the company price)');
    return { kind: 'company', product: line.product, company: line.company, price: optionalCents(line.price, 'price') };
  }
  if (line.price !== undefined) throw new LineError('/price: belongs to a company price line (give company)');
  if (given.length === 0) throw new LineError(`(line): give at least one of ${PRODUCT_FIELDS.join(', ')}, or company and price`);
  return {
    kind: 'product',
    product: line.product,
    shop: line.shopPrice === undefined ? undefined : cents(line.shopPrice, 'shopPrice'),
    original: line.originalPrice === undefined ? undefined : optionalCents(line.originalPrice, 'originalPrice'),
    wholesale: line.wholesalePrice === undefined ? undefined : optionalCents(line.wholesalePrice, 'wholesalePrice'),
    vatRate: line.vatRate,
  };
}

export const pricesKind = lineKind('import prices <file.ndjson>         price changes of products, company prices', (deps) =>
  priceLines(deps, {}),
);

/**
 * The price feed's lines; with a supplier in `scope`, only that supplier's products and no company
 * prices (those are the back office's agreements with its customers).
 */
export function priceLines({ db, clock, log }: ImportDeps, scope: LineScope): LineImporter<PriceRecord> {
  const refs = new References(db);
  return {
    parse: lineParser(PriceLine, convert),
    async apply(record: PriceRecord) {
      const productId = await refs.requireOne('product', record.product, 'product');
      await requireSupplierProduct(db, productId, record.product, scope);
      if (record.kind === 'company' && scope.supplierId !== undefined)
        throw new LineError('/company: company prices come from the back office only');
      return inLineTransaction(db, log, async (trx) => {
        if (record.kind === 'company') return companyPrice(trx, productId, record);
        const now = clock.now();
        const outcome = await productPrices(trx, productId, record, now);
        if (outcome !== 'unchanged') await productChanged(trx, productId, 'prices', now);
        return outcome;
      });
    },
  };
}

async function productPrices(
  trx: Trx,
  productId: number,
  record: Extract<PriceRecord, { kind: 'product' }>,
  now: number,
): Promise<Outcome> {
  const stored = await readProductPrices(trx, productId);
  const shop = record.shop ?? stored.shop_price_cents;
  const original = record.original === undefined ? stored.original_price_cents : record.original;
  const wanted = {
    shop_price_cents: shop,
    original_price_cents: original,
    wholesale_price_cents: record.wholesale === undefined ? stored.wholesale_price_cents : record.wholesale,
    vat_rate_percent: record.vatRate ?? stored.vat_rate_percent,
    discount_percent: discountPercent(shop, original),
  };
  const diff = changedColumns(stored, wanted);
  if (isEmpty(diff)) return 'unchanged';
  await updateProduct(trx, productId, { ...diff, updated_at: now });
  return 'updated';
}

/** A registry code may belong to several company records (one per account); each gets the price. */
async function companyPrice(trx: Trx, productId: number, record: Extract<PriceRecord, { kind: 'company' }>): Promise<Outcome> {
  const companies = await findCompanyIds(trx, record.company);
  if (companies.length === 0) throw new LineError(`/company: no company with registry code "${record.company}"`);
  let outcome: Outcome = 'unchanged';
  for (const { id } of companies) {
    const stored = await findCompanyPrice(trx, id, productId);
    if (record.price === null) {
      if (!stored) continue;
      await deleteCompanyPrice(trx, id, productId);
      outcome = 'updated';
    } else if (!stored) {
      await insertCompanyPrice(trx, id, productId, record.price);
      if (outcome === 'unchanged') outcome = 'created';
    } else if (stored.price_cents !== record.price) {
      await updateCompanyPrice(trx, id, productId, record.price);
      outcome = 'updated';
    }
  }
  return outcome;
}
