import type { Db } from '../../db/database.js';
import type { Availability, DeliveryTime } from '../catalogue/index.js';
import type { ProductTypeCode } from '../../db/schema.js';
import type { CampaignPrice } from '../pricing/index.js';

// What the basket reads of the catalogue. Writes and checkout read it from the tables inside their
// transaction (these facts move money); GET /basket shows products kept per process for the
// catalogue's cache period, as the catalogue's own cards do (basket-product-cache.ts).

export interface BasketProduct {
  id: number;
  code: string;
  name: string;
  type: ProductTypeCode;
  bindingCode: string | null;
  imageUrl: string | null;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
  webStock: number;
  weightG: number | null;
  isActive: boolean;
  hiddenWeb: boolean;
  hiddenBusiness: boolean;
  inStore: boolean;
  shopPriceCents: number;
  originalPriceCents: number | null;
  wholesalePriceCents: number | null;
  vatRatePercent: number;
  campaignPrices: CampaignPrice[];
}

/** A company's own prices (wholesale) for the products, by product id. */
export async function readCompanyPrices(db: Db, companyId: number | null, ids: readonly number[]): Promise<Map<number, number>> {
  if (companyId === null || ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('company_product_price')
    .select(['product_id', 'price_cents'])
    .where('company_id', '=', companyId)
    .where('product_id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [Number(row.product_id), row.price_cents]));
}

/** The codes of the categories of each product, with every ancestor of them (a category means its subtree). */
export async function readProductCategoryCodes(db: Db, ids: readonly number[]): Promise<Map<number, Set<string>>> {
  const result = new Map<number, Set<string>>();
  if (ids.length === 0) return result;
  const links = await db
    .selectFrom('product_category')
    .innerJoin('category', 'category.id', 'product_category.category_id')
    .select(['product_category.product_id', 'category.id', 'category.code', 'category.parent_id'])
    .where('product_category.product_id', 'in', [...ids])
    .execute();
  const parents = new Map<number, { code: string; parent: number | null }>();
  let pending = new Set<number>();
  for (const link of links) {
    parents.set(Number(link.id), { code: link.code, parent: link.parent_id === null ? null : Number(link.parent_id) });
    if (link.parent_id !== null) pending.add(Number(link.parent_id));
  }
  // A tree is a few levels deep: one query per level.
  while (pending.size > 0) {
    const wanted = [...pending].filter((id) => !parents.has(id));
    pending = new Set();
    if (wanted.length === 0) break;
    const rows = await db.selectFrom('category').select(['id', 'code', 'parent_id']).where('id', 'in', wanted).execute();
    for (const row of rows) {
      parents.set(Number(row.id), { code: row.code, parent: row.parent_id === null ? null : Number(row.parent_id) });
      if (row.parent_id !== null) pending.add(Number(row.parent_id));
    }
  }
  for (const link of links) {
    const codes = result.get(Number(link.product_id)) ?? new Set<string>();
    let current: number | null = Number(link.id);
    for (let depth = 0; current !== null && depth < 50; depth += 1) {
      const node = parents.get(current);
      if (!node) break;
      codes.add(node.code);
      current = node.parent;
    }
    result.set(Number(link.product_id), codes);
  }
  return result;
}
