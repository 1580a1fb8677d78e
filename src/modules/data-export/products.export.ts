import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { priceFor, toWireMoney, type PricedProduct, type StoreDiscounts } from '../pricing/index.js';
import { groupBy, lastBoundary, pickName, type ExportCollection, type ExportContext } from './collection.js';
import type { CategoryItem, ProductItem } from './data-export.schemas.js';
import {
  readAuthors,
  readCategories,
  readCategoryLinks,
  readCategoryNames,
  readProductCodes,
  readProducts,
  readProductStores,
  readPublishers,
  readRetailCampaignPrices,
  readStoreDiscounts,
} from './product-export.repository.js';

/**
 * Every product, active or not: sales history and session actions name products the back office
 * no longer sells, and the partner needs them to make sense of those rows.
 *
 * Prices are a guest's retail prices (pricing.ts) in one store: the default store (DEFAULT_STORE)
 * when the product is sold there, else the first store that sells it (by code), with that store's
 * guest discount and its running retail campaigns. A product no store sells gets its shop price
 * (less nothing). `price` is the regular price (the struck-through one when there is a discount),
 * `discountPrice` what the guest pays; `isDiscountedProduct` is whether the two differ.
 */
export const productsCollection: ExportCollection<ProductItem> = {
  path: '/product',
  table: 'product',
  settles: true,
  // The spec's Product has updatedAt: updatedFrom and updatedTo find what changed (prices, stock,
  // names, links) after a first full read, where the spec's `page` alone means reading all again.
  filters: { created: false, updated: true },
  async load(context, slice) {
    const { db } = context;
    const rows = await readProducts(db, slice);
    if (rows.length === 0) return { items: [], last: undefined };
    const ids = rows.map((row) => Number(row.id));
    const publisherIds = unique(rows.map((row) => row.publisher_id));
    const physicalIds = unique(rows.map((row) => row.physical_book_id));

    const [publishers, physicalBooks, authors, stores, categoriesOf, campaigns, discounts] = await Promise.all([
      readPublishers(db, publisherIds),
      readProductCodes(db, physicalIds),
      readAuthors(db, ids),
      readProductStores(db, ids),
      productCategories(db, ids),
      readRetailCampaignPrices(db, ids),
      readStoreDiscounts(db),
    ]);

    const publisherById = new Map(publishers.map((p) => [Number(p.id), { name: p.name, code: p.code }]));
    const physicalCodeById = new Map(physicalBooks.map((p) => [Number(p.id), p.code]));
    const authorsOf = groupBy(authors, (a) => Number(a.product_id));
    const storesOf = groupBy(stores, (s) => Number(s.product_id));
    const campaignsOf = groupBy(campaigns, (c) => Number(c.product_id));
    const discountsOf = new Map(
      discounts.map((d): [string, StoreDiscounts] => [
        d.code,
        { guestDiscountPercent: Number(d.guest_discount_percent), loggedInDiscountPercent: Number(d.logged_in_discount_percent) },
      ]),
    );

    const items = rows.map((row): ProductItem => {
      const id = Number(row.id);
      const webStores = (storesOf.get(id) ?? []).map((s) => s.store_code);
      const store = webStores.includes(context.defaultStore) ? context.defaultStore : webStores[0];
      const priced: PricedProduct = {
        type: row.type,
        shopPriceCents: Number(row.shop_price_cents),
        originalPriceCents: row.original_price_cents === null ? null : Number(row.original_price_cents),
        wholesalePriceCents: row.wholesale_price_cents === null ? null : Number(row.wholesale_price_cents),
        vatRatePercent: Number(row.vat_rate_percent),
        campaignPrices: (campaignsOf.get(id) ?? [])
          .filter((c) => c.store_code === store)
          .map((c) => ({
            customerKind: 'RETAIL' as const,
            priceCents: Number(c.price_cents),
            validFrom: c.valid_from === null ? undefined : Number(c.valid_from),
            validTo: c.valid_to === null ? undefined : Number(c.valid_to),
          })),
      };
      const prices = guestPrices(context, priced, store === undefined ? undefined : discountsOf.get(store));
      return {
        code: row.code,
        type: row.type,
        language: row.language,
        name: row.name,
        price: prices.price,
        discountPrice: prices.discountPrice,
        isDiscountedProduct: prices.discountPrice < prices.price,
        description: row.description,
        stockCount: Number(row.web_stock),
        imageUrl: row.image_url,
        createdAt: toRfc3339(Number(row.created_at)),
        updatedAt: toRfc3339(Number(row.updated_at)),
        categories: categoriesOf.get(id) ?? [],
        authors: (authorsOf.get(id) ?? []).map((a) => ({ name: a.name, code: a.code })),
        publisher: row.publisher_id === null ? null : (publisherById.get(Number(row.publisher_id)) ?? null),
        webStores,
        physicalBook: row.physical_book_id === null ? null : (physicalCodeById.get(Number(row.physical_book_id)) ?? null),
      };
    });
    return { items, last: lastBoundary(rows, slice) };
  },
};

const NO_STORE: StoreDiscounts = { guestDiscountPercent: 0, loggedInDiscountPercent: 0 };

function guestPrices(
  context: ExportContext,
  product: PricedProduct,
  store: StoreDiscounts | undefined,
): { price: number; discountPrice: number } {
  try {
    const price = priceFor(product, { kind: 'GUEST' }, store ?? NO_STORE, context.now);
    return { price: toWireMoney(price.strikeThroughCents ?? price.priceCents), discountPrice: toWireMoney(price.priceCents) };
  } catch {
    // Data the pricing rules refuse (imports check prices, so this is a broken row): the shop price as is.
    const shop = Math.max(0, Math.round(product.shopPriceCents));
    return { price: toWireMoney(shop), discountPrice: toWireMoney(shop) };
  }
}

interface CategoryNode {
  id: number;
  parentId: number | null;
  item: CategoryItem;
}

type ProductCategories = Map<number, ProductItem['categories']>;

/**
 * Each product's categories with their parent and root. The categories and their ancestors are
 * read level by level (a handful of queries per page, however many products), then their names.
 */
async function productCategories(db: Kysely<Database>, productIds: number[]): Promise<ProductCategories> {
  const links = await readCategoryLinks(db, productIds);
  const result: ProductCategories = new Map();
  if (links.length === 0) return result;

  const nodes = new Map<number, CategoryNode>();
  let wanted = unique(links.map((link) => link.category_id));
  // The depth of a tree bounds the rounds; the cap only guards against a cycle in bad data.
  for (let round = 0; wanted.length > 0 && round < 32; round += 1) {
    const rows = await readCategories(db, wanted);
    for (const row of rows) {
      nodes.set(Number(row.id), {
        id: Number(row.id),
        parentId: row.parent_id === null ? null : Number(row.parent_id),
        item: { code: row.code, level: String(row.level), name: row.code, webStore: row.store_code },
      });
    }
    wanted = unique(rows.map((row) => row.parent_id)).filter((id) => !nodes.has(id));
  }
  const names = await readCategoryNames(db, [...nodes.keys()]);
  for (const [id, entries] of groupBy(names, (n) => Number(n.category_id))) {
    const node = nodes.get(id);
    if (node !== undefined) node.item.name = pickName(entries) ?? node.item.code;
  }

  for (const link of links) {
    const node = nodes.get(Number(link.category_id));
    if (node === undefined) continue;
    // A root is its own parent and root: the spec's parent and root are not nullable.
    const parent = node.parentId === null ? node : (nodes.get(node.parentId) ?? node);
    let root = node;
    for (let depth = 0; root.parentId !== null && depth < 32; depth += 1) {
      const up = nodes.get(root.parentId);
      if (up === undefined) break;
      root = up;
    }
    const entries = result.get(Number(link.product_id)) ?? [];
    entries.push({ category: node.item, parent: parent.item, root: root.item });
    result.set(Number(link.product_id), entries);
  }
  return result;
}

function unique(values: ReadonlyArray<number | null>): number[] {
  return [...new Set(values.filter((value): value is number => value !== null).map(Number))];
}
