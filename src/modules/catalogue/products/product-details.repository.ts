import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { preparedQuery } from '../../../db/prepared.js';
import type { PersonRole } from '../catalogue.tables.js';
import type { Language } from '../../../i18n/index.js';
import type { CategoryTree } from '../browse/category-tree.js';
import { translatedName, withTranslations } from '../translated.js';

/** What the product page shows beyond the card; the same for every caller of a store and language. */
export interface ProductExtras {
  ean: string | null;
  altCodes: string[];
  altNames: string[];
  description: string | null;
  pages: number | null;
  dimensions: { widthMm: number | null; heightMm: number | null; depthMm: number | null } | null;
  weightG: number | null;
  vatRatePercent: number;
  publisher: { id: number; code: string; name: string } | null;
  series: { id: number; code: string; name: string; number: number | null } | null;
  persons: Array<{ id: number; code: string; name: string; role: PersonRole }>;
  categories: Array<{ id: number; code: string; name: string; level: number; parentId: number | null }>;
  images: Array<{ url: string; width: number | null; height: number | null }>;
  physicalBook: { id: number; code: string; name: string } | null;
  ebook: { id: number; code: string; name: string } | null;
  availabilityByShop: Array<{ code: string; name: string; city: string; address: string | null; quantity: number }>;
}

/** The product row with what its page shows of its publisher, series and physical edition; `p` is the product. */
export function extrasRow(db: Kysely<Database>) {
  return db
    .selectFrom('product as p')
    .leftJoin('publisher', 'publisher.id', 'p.publisher_id')
    .leftJoin('series', 'series.id', 'p.series_id')
    .leftJoin('product as physical', 'physical.id', 'p.physical_book_id')
    .select([
      'p.ean',
      'p.alt_names',
      'p.description',
      'p.pages',
      'p.width_mm',
      'p.height_mm',
      'p.depth_mm',
      'p.weight_g',
      'p.vat_rate_percent',
      'publisher.id as publisher_id',
      'publisher.code as publisher_code',
      'publisher.name as publisher_name',
      'series.id as series_id',
      'series.code as series_code',
      'series.name as series_name',
      'p.series_number',
      'physical.id as physical_id',
      'physical.code as physical_code',
      'physical.name as physical_name',
      'physical.is_active as physical_active',
    ]);
}

export type ExtrasRow = Awaited<ReturnType<ReturnType<typeof extrasRow>['execute']>>[number];

/** What the page shows of the product's other tables, read one way or another (its own queries, or its document). */
export interface ExtrasParts {
  codes: Array<{ code: string }>;
  people: ProductExtras['persons'];
  categoryIds: number[];
  imageRows: ProductExtras['images'];
  ebookRow: ProductExtras['ebook'] | undefined;
  shopRows: ShopStockRow[];
}

export type ShopStockRow = {
  code: string;
  city: string;
  address: string | null;
  name: string | null;
  et_name: string | null;
  quantity: number;
};

/**
 * The product's stock in each active shop that has some, in the shops' order, with the shop's name
 * in the language; `productId` is a value or a reference to the product's id in an outer query.
 */
export function shopStockQuery(db: Kysely<Database>, productId: number | ReturnType<typeof sql.ref<number>>, language: Language) {
  return withTranslations(db.selectFrom('shop_stock').innerJoin('shop', 'shop.id', 'shop_stock.shop_id'), 'shop_name', 'shop.id', language)
    .select(['shop.code', 'shop.city', 'shop.address', 'asked.name as name', 'et.name as et_name', 'shop_stock.quantity'])
    .where('shop_stock.product_id', '=', productId)
    .where('shop_stock.quantity', '>', 0)
    .where('shop.is_active', '=', true)
    .where('shop.is_listed', '=', true)
    .orderBy('shop.position')
    .orderBy('shop.id');
}

export function shopStockReader(database: DatabaseHandle): (id: number, language: Language) => Promise<ShopStockRow[]> {
  return preparedQuery(database, (db, id: number, language: Language) => shopStockQuery(db, id, language));
}

export type ExtrasReader = (id: number, tree: CategoryTree, language: Language) => Promise<ProductExtras | undefined>;

/**
 * Reads what the product page shows beyond the card with its own queries (the availability route;
 * the page itself reads its document: product-document.repository.ts). Its queries are prepared
 * once (built and compiled by Kysely at start-up): seven indexed reads and nothing else.
 */
export function productExtrasReader(database: DatabaseHandle): ExtrasReader {
  const productRow = preparedQuery(database, (db, id: number) => extrasRow(db).where('p.id', '=', id));
  const altCodes = preparedQuery(database, (db, id: number) =>
    db.selectFrom('product_alt_code').select('code').where('product_id', '=', id).orderBy('code'),
  );
  const persons = preparedQuery(database, (db, id: number) =>
    db
      .selectFrom('product_person')
      .innerJoin('person', 'person.id', 'product_person.person_id')
      .select(['person.id', 'person.code', 'person.name', 'product_person.role'])
      .where('product_person.product_id', '=', id)
      .orderBy('product_person.position')
      .orderBy('person.id'),
  );
  const categories = preparedQuery(database, (db, id: number) =>
    db.selectFrom('product_category').select('category_id').where('product_id', '=', id),
  );
  const images = preparedQuery(database, (db, id: number) =>
    db
      .selectFrom('product_asset')
      .select(['url', 'width', 'height'])
      .where('product_id', '=', id)
      .where('kind', '=', 'IMAGE')
      .orderBy('position')
      .orderBy('id'),
  );
  const ebook = preparedQuery(database, (db, id: number) =>
    db
      .selectFrom('product')
      .select(['id', 'code', 'name'])
      .where('physical_book_id', '=', id)
      .where('type', '=', 'EBOOK')
      .where('is_active', '=', true)
      .orderBy('id')
      .limit(1),
  );
  const shops = shopStockReader(database);

  return async (id, tree, language) => {
    const [product] = await productRow(id);
    if (!product) return undefined;
    const [codes, people, categoryRows, imageRows, [ebookRow], shopRows] = await Promise.all([
      altCodes(id),
      persons(id),
      categories(id),
      images(id),
      ebook(id),
      shops(id, language),
    ]);
    return toExtras(
      product,
      { codes, people, categoryIds: categoryRows.map((row) => row.category_id), imageRows, ebookRow, shopRows },
      tree,
    );
  };
}

/** The page's extras from the product row and its parts; categories are the ones of this store's tree that are shown, root first. */
export function toExtras(product: ExtrasRow, parts: ExtrasParts, tree: CategoryTree): ProductExtras {
  const { codes, people, categoryIds, imageRows, ebookRow, shopRows } = parts;
  const hasDimensions = product.width_mm !== null || product.height_mm !== null || product.depth_mm !== null;
  return {
    ean: product.ean,
    altCodes: codes.map((row) => row.code),
    altNames: parseNames(product.alt_names),
    description: product.description,
    pages: product.pages,
    dimensions: hasDimensions ? { widthMm: product.width_mm, heightMm: product.height_mm, depthMm: product.depth_mm } : null,
    weightG: product.weight_g,
    vatRatePercent: product.vat_rate_percent,
    publisher:
      product.publisher_id === null ? null : { id: product.publisher_id, code: product.publisher_code!, name: product.publisher_name! },
    series:
      product.series_id === null
        ? null
        : { id: product.series_id, code: product.series_code!, name: product.series_name!, number: product.series_number },
    persons: people,
    categories: categoryIds
      .map((categoryId) => tree.byId.get(categoryId))
      .filter((node) => node !== undefined)
      .sort((a, b) => a.level - b.level || a.position - b.position || a.id - b.id)
      .map(({ id: categoryId, code, name, level, parentId }) => ({ id: categoryId, code, name, level, parentId })),
    images: imageRows,
    physicalBook:
      product.physical_id === null || !product.physical_active
        ? null
        : { id: product.physical_id, code: product.physical_code!, name: product.physical_name! },
    ebook: ebookRow ?? null,
    availabilityByShop: shopRows.map((shop) => ({
      code: shop.code,
      name: translatedName(shop),
      city: shop.city,
      address: shop.address,
      quantity: shop.quantity,
    })),
  };
}

function parseNames(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}
