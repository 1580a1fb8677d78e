import { Type, type Static } from '@sinclair/typebox';
import { replaceChildRows, type ChildRows } from './child-rows.js';
import {
  Code,
  DateValue,
  Money,
  Position,
  Store,
  Translated,
  TranslatedText,
  cents,
  lineParser,
  nameRows,
  unique,
  validityWindow,
} from './fields.js';
import { lineKind } from './kind.js';
import { syncNames } from './names.js';
import { References } from './references.js';
import { inLineTransaction, upsertByCode } from './write.js';
import { campaignProductIds } from './campaigns.repository.js';
import { queueCampaignStamps } from './campaigns.jobs.js';

// Campaigns: a time-boxed price per product and customer kind, shown as a list in one store. The
// file's price rows replace the campaign's (compared first, so an unchanged campaign stays as is).

const CampaignLine = Type.Object(
  {
    code: Code(),
    store: Store,
    validFrom: Type.Optional(Type.Union([DateValue, Type.Null()])),
    validTo: Type.Optional(Type.Union([DateValue, Type.Null()])),
    active: Type.Optional(Type.Boolean()),
    position: Type.Optional(Position),
    imageUrl: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^https?://\\S+$' }), Type.Null()])),
    names: Translated(200),
    descriptions: Type.Optional(TranslatedText(20_000)),
    prices: Type.Array(
      Type.Object(
        { product: Code('product code'), customerKind: Type.Union([Type.Literal('RETAIL'), Type.Literal('BUSINESS')]), price: Money },
        { additionalProperties: false },
      ),
      { maxItems: 100_000 },
    ),
  },
  { additionalProperties: false },
);
type CampaignLine = Static<typeof CampaignLine>;

interface CampaignRecord {
  line: CampaignLine;
  validFrom: number | null;
  validTo: number | null;
  prices: Array<{ product: string; customer_kind: 'RETAIL' | 'BUSINESS'; price_cents: number }>;
}

function convert(line: CampaignLine): CampaignRecord {
  const { start: validFrom, end: validTo } = validityWindow(line.validFrom, line.validTo, ['validFrom', 'validTo']);
  unique(
    line.prices.map((price) => `${price.product} for ${price.customerKind}`),
    'prices',
  );
  return {
    line,
    validFrom,
    validTo,
    prices: line.prices.map((price, index) => ({
      product: price.product,
      customer_kind: price.customerKind,
      price_cents: cents(price.price, `prices/${index}/price`),
    })),
  };
}

const PRICES: ChildRows<'campaign_price', 'campaign_id'> = {
  table: 'campaign_price',
  owner: 'campaign_id',
  compare: ['product_id', 'customer_kind', 'price_cents', 'position'],
  orderBy: ['position'],
};

/** The campaign's columns that decide which price the data export's product items show. */
const PRICING: ReadonlyArray<string> = ['store_code', 'valid_from', 'valid_to', 'is_active'];

export const campaignsKind = lineKind('import campaigns <file.ndjson>      campaigns and their prices', ({ db, clock, log }) => {
  const refs = new References(db);
  return {
    parse: lineParser(CampaignLine, convert),
    async apply({ line, validFrom, validTo, prices }: CampaignRecord) {
      const productIds = await refs.require(
        'product',
        prices.map((price) => price.product),
        'prices',
      );
      const rows = prices.map((price, position) => ({
        product_id: productIds[position]!,
        customer_kind: price.customer_kind,
        price_cents: price.price_cents,
        position,
      }));
      const wanted = {
        store_code: line.store,
        valid_from: validFrom,
        valid_to: validTo,
        is_active: line.active ?? true,
        position: line.position ?? 0,
        image_url: line.imageUrl ?? null,
      };
      const names = nameRows(line.names, line.descriptions);
      return inLineTransaction(db, log, async (trx) => {
        const now = clock.now();
        const written = await upsertByCode(trx, 'campaign', line.code, wanted, now, async (id, isNew, changed) => {
          const namesChanged = await syncNames.campaign(trx, id, names, isNew);
          const before = isNew ? [] : await campaignProductIds(trx, id);
          const pricesChanged = await replaceChildRows(trx, PRICES, id, rows, isNew);
          // The products priced before and after show another price in the data export: a partner
          // reading /product by updatedFrom must find them (a price that starts or ends by time
          // alone is not a write, and is not found). Stamped by jobs queued here, each in a short
          // transaction of its own once this one committed: stamped here, the products' rows stayed
          // locked until the whole line committed (campaigns.jobs.ts).
          if (isNew || pricesChanged || PRICING.some((column) => column in changed))
            await queueCampaignStamps(trx, [...before, ...rows.map((row) => row.product_id)], now);
          return pricesChanged || namesChanged;
        });
        return written.outcome;
      });
    },
  };
});
