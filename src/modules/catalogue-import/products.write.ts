import type { PersonRole } from '../catalogue/index.js';
import { discountPercent, refreshImageUrl } from '../catalogue/index.js';
import { replaceChildRows, type ChildRows } from './child-rows.js';
import { LineError } from './fields.js';
import type { ProductRecord } from './products.format.js';
import { upsertByCode, type Outcome, type Trx } from './write.js';

// Writes one product line: the product row and the rows that hang off it (codes, stores, persons,
// categories, assets, related), each compared with what is stored and replaced only when it
// differs. The derived columns (discount_percent, image_url) are kept with them.

export interface ResolvedProduct {
  record: ProductRecord;
  publisherId: number | null;
  seriesId: number | null;
  /** undefined: the physical edition is later in the file; linked after the file was read. */
  physicalBookId: number | null | undefined;
  /** undefined: some related product is later in the file; linked after the file was read. */
  relatedIds: number[] | undefined;
  persons: Array<{ person_id: number; role: PersonRole; position: number }>;
  categoryIds: number[];
}

/**
 * `owner`: the supplier whose feed writes it (a supplier's feed claims the products it creates).
 * `retyping` runs when the line changes the type of a stored product, before anything of the line
 * is written, and may throw to refuse it; whether the type changes is told by the stored row the
 * write reads anyway, so other lines cost no read.
 */
export async function writeProduct(
  trx: Trx,
  product: ResolvedProduct,
  now: number,
  owner: { supplier_id?: number } = {},
  retyping: (id: number) => Promise<void> = async () => {},
): Promise<{ id: number; outcome: Outcome }> {
  const { record } = product;
  const wanted = {
    ...record.columns,
    ...owner,
    publisher_id: product.publisherId,
    series_id: product.seriesId,
    discount_percent: discountPercent(record.columns.shop_price_cents, record.columns.original_price_cents),
    ...(product.physicalBookId === undefined ? {} : { physical_book_id: product.physicalBookId }),
    ...(record.salesCount === undefined ? {} : { sales_count: record.salesCount }),
  };
  const { id, outcome } = await upsertByCode(trx, 'product', record.code, wanted, now, async (id, isNew, changed) => {
    // upsertByCode calls this before it writes a stored product's row: nothing of the line is written yet.
    // A supplier's feed writes only its own products. Checked on the row this write reads, in its
    // transaction: a product the back office (or another supplier) created after the feed's first
    // look at the code would otherwise be claimed by it.
    if (!isNew && owner.supplier_id !== undefined && changed.supplier_id !== undefined) {
      throw new LineError(`/code: product "${record.code}" is not one of this supplier's products`);
    }
    if (!isNew && changed.type !== undefined) await retyping(id);
    return writeChildren(trx, id, product, isNew);
  });
  return { id, outcome };
}

// A product's own rows. Codes, stores and categories are sets; the others keep the line's order.
const ALT_CODES: ChildRows<'product_alt_code', 'product_id'> = { table: 'product_alt_code', owner: 'product_id', compare: ['code'] };
const STORES: ChildRows<'product_store', 'product_id'> = { table: 'product_store', owner: 'product_id', compare: ['store_code'] };
const CATEGORIES: ChildRows<'product_category', 'product_id'> = {
  table: 'product_category',
  owner: 'product_id',
  compare: ['category_id'],
};
const PERSONS: ChildRows<'product_person', 'product_id'> = {
  table: 'product_person',
  owner: 'product_id',
  compare: ['person_id', 'role', 'position'],
  orderBy: ['position'],
};
const ASSETS: ChildRows<'product_asset', 'product_id'> = {
  table: 'product_asset',
  owner: 'product_id',
  compare: ['kind', 'url', 'mime_type', 'width', 'height'],
  orderBy: ['position', 'id'],
};
const RELATED: ChildRows<'product_related', 'product_id'> = {
  table: 'product_related',
  owner: 'product_id',
  compare: ['related_product_id'],
  orderBy: ['position'],
};

/** Whether any of the product's own rows changed. */
async function writeChildren(trx: Trx, id: number, product: ResolvedProduct, isNew: boolean): Promise<boolean> {
  const { record } = product;
  let changed = false;
  changed =
    (await replaceChildRows(
      trx,
      ALT_CODES,
      id,
      record.altCodes.map((code) => ({ code })),
      isNew,
    )) || changed;
  changed =
    (await replaceChildRows(
      trx,
      STORES,
      id,
      record.stores.map((store_code) => ({ store_code })),
      isNew,
    )) || changed;
  changed = (await replaceChildRows(trx, PERSONS, id, product.persons, isNew)) || changed;
  changed =
    (await replaceChildRows(
      trx,
      CATEGORIES,
      id,
      product.categoryIds.map((category_id) => ({ category_id })),
      isNew,
    )) || changed;
  if (
    await replaceChildRows(
      trx,
      ASSETS,
      id,
      record.assets.map((asset, position) => ({ ...asset, position })),
      isNew,
    )
  ) {
    await refreshImageUrl(trx, [id]);
    changed = true;
  }
  if (product.relatedIds !== undefined) changed = (await syncRelated(trx, id, product.relatedIds, isNew)) || changed;
  return changed;
}

/** The related products in their order; also used when links are resolved after the file. */
export function syncRelated(trx: Trx, id: number, relatedIds: number[], isNew: boolean): Promise<boolean> {
  return replaceChildRows(
    trx,
    RELATED,
    id,
    relatedIds.map((related_product_id, position) => ({ related_product_id, position })),
    isNew,
  );
}
