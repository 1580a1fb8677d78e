import { sql, type Kysely } from 'kysely';
import type { Database, ProductTypeCode } from '../../src/db/schema.js';
import type { Availability, DeliveryTime, PersonRole } from '../../src/modules/catalogue/index.js';
import { discountPercent } from '../../src/modules/catalogue/denormalised.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { refreshImageUrl, refreshWebStock } from '../../src/modules/catalogue/denormalised.repository.js';

// Small hand-made catalogues for tests, written the way the import writes them (derived columns
// included), so a test states exactly the products it needs.

type Db = Kysely<Database>;
type Names = { et: string; en?: string; ru?: string };

let sequence = 0;
const next = (prefix: string) => `${prefix}${(sequence += 1)}`;
const now = () => Date.now();

export async function createPublisher(db: Db, name: string, code = next('PUB')): Promise<number> {
  const row = await db
    .insertInto('publisher')
    .values({ code, name, description: null, created_at: now(), updated_at: now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A person; the sort name derived from the name as the import derives it, unless given. */
export async function createPerson(db: Db, name: string, code = next('PER'), sortName = personSortName(name)): Promise<number> {
  const row = await db
    .insertInto('person')
    .values({ code, name, sort_name: sortName, description: `About ${name}`, image_url: null, created_at: now(), updated_at: now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function createSeries(db: Db, name: string, options: { code?: string; publisherId?: number } = {}): Promise<number> {
  const row = await db
    .insertInto('series')
    .values({
      code: options.code ?? next('SER'),
      name,
      publisher_id: options.publisherId ?? null,
      description: null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function createCategory(
  db: Db,
  names: Names,
  options: { store?: string; parentId?: number; code?: string; position?: number; active?: boolean } = {},
): Promise<number> {
  const parent =
    options.parentId === undefined
      ? undefined
      : await db.selectFrom('category').select('level').where('id', '=', options.parentId).executeTakeFirstOrThrow();
  const row = await db
    .insertInto('category')
    .values({
      code: options.code ?? next('CAT'),
      store_code: options.store ?? 'WEB',
      parent_id: options.parentId ?? null,
      level: parent ? parent.level + 1 : 1,
      position: options.position ?? 0,
      is_active: options.active ?? true,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('category_name')
    .values(Object.entries(names).map(([language, name]) => ({ category_id: row.id, language, name: name!, description: null })))
    .execute();
  return row.id;
}

export async function createShop(
  db: Db,
  options: { code?: string; name?: string; city?: string; webStock?: boolean; position?: number } = {},
): Promise<number> {
  const code = options.code ?? next('SHOP');
  const row = await db
    .insertInto('shop')
    .values({
      code,
      city: options.city ?? 'Tallinn',
      address: 'Viru 23',
      phone: null,
      email: null,
      web_stock: options.webStock ?? true,
      is_active: true,
      position: options.position ?? 0,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('shop_name')
    .values({ shop_id: row.id, language: 'et', name: options.name ?? `Pood ${code}`, opening_hours: null })
    .execute();
  return row.id;
}

export interface ProductSpec {
  code?: string;
  name?: string;
  type?: ProductTypeCode;
  ean?: string | null;
  language?: string | null;
  binding?: string | null;
  /** Euros, e.g. 19.99. */
  price?: number;
  originalPrice?: number | null;
  wholesalePrice?: number | null;
  vatRate?: number;
  stores?: string[];
  categoryIds?: number[];
  persons?: Array<{ id: number; role?: PersonRole }>;
  publisherId?: number | null;
  seriesId?: number | null;
  seriesNumber?: number | null;
  physicalBookId?: number | null;
  availability?: Availability;
  deliveryTime?: DeliveryTime | null;
  active?: boolean;
  hiddenWeb?: boolean;
  hiddenBusiness?: boolean;
  salesCount?: number;
  releasedAt?: number | null;
  images?: string[];
  altNames?: string[];
  altCodes?: string[];
  description?: string | null;
}

const cents = (euros: number) => Math.round(euros * 100);

export async function createProduct(db: Db, spec: ProductSpec = {}): Promise<number> {
  const code = spec.code ?? next('P');
  const shop = cents(spec.price ?? 10);
  const original = spec.originalPrice == null ? null : cents(spec.originalPrice);
  const row = await db
    .insertInto('product')
    .values({
      code,
      ean: spec.ean ?? null,
      type: spec.type ?? 'BOOK',
      name: spec.name ?? `Product ${code}`,
      alt_names: JSON.stringify(spec.altNames ?? []),
      description: spec.description ?? null,
      language: spec.language === undefined ? 'ET' : spec.language,
      binding_code: spec.binding === undefined ? 'HARDCOVER' : spec.binding,
      year: 2024,
      pages: 200,
      width_mm: 130,
      height_mm: 200,
      depth_mm: 20,
      weight_g: 300,
      publisher_id: spec.publisherId ?? null,
      series_id: spec.seriesId ?? null,
      series_number: spec.seriesNumber ?? null,
      physical_book_id: spec.physicalBookId ?? null,
      shop_price_cents: shop,
      original_price_cents: original,
      wholesale_price_cents: spec.wholesalePrice == null ? null : cents(spec.wholesalePrice),
      vat_rate_percent: spec.vatRate ?? 9,
      discount_percent: discountPercent(shop, original),
      availability: spec.availability ?? 'AVAILABLE',
      delivery_time: spec.deliveryTime === undefined ? 'DAYS_1_7' : spec.deliveryTime,
      is_active: spec.active ?? true,
      hidden_web: spec.hiddenWeb ?? false,
      hidden_business: spec.hiddenBusiness ?? false,
      sales_count: spec.salesCount ?? 0,
      released_at: spec.releasedAt === undefined ? Date.UTC(2024, 0, 1) : spec.releasedAt,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = row.id;
  const stores = spec.stores ?? ['WEB'];
  if (stores.length > 0)
    await db
      .insertInto('product_store')
      .values(stores.map((store_code) => ({ product_id: id, store_code })))
      .execute();
  if (spec.categoryIds?.length)
    await db
      .insertInto('product_category')
      .values(spec.categoryIds.map((category_id) => ({ product_id: id, category_id })))
      .execute();
  if (spec.persons?.length) {
    await db
      .insertInto('product_person')
      .values(spec.persons.map((person, position) => ({ product_id: id, person_id: person.id, role: person.role ?? 'AUTHOR', position })))
      .execute();
  }
  if (spec.altCodes?.length)
    await db
      .insertInto('product_alt_code')
      .values(spec.altCodes.map((altCode) => ({ product_id: id, code: altCode })))
      .execute();
  if (spec.images?.length) {
    await db
      .insertInto('product_asset')
      .values(
        spec.images.map((url, position) => ({
          product_id: id,
          kind: 'IMAGE' as const,
          url,
          mime_type: 'image/jpeg',
          width: 600,
          height: 900,
          position,
        })),
      )
      .execute();
    await refreshImageUrl(db, [id]);
  }
  return id;
}

export async function setStock(db: Db, productId: number, shopId: number, quantity: number): Promise<void> {
  await db
    .insertInto('shop_stock')
    .values({ product_id: productId, shop_id: shopId, quantity, updated_at: now() })
    .onConflict((conflict) => conflict.columns(['product_id', 'shop_id']).doUpdateSet({ quantity, updated_at: now() }))
    .execute();
  await refreshWebStock(db, [productId]);
}

export async function createCampaign(
  db: Db,
  options: {
    store?: string;
    code?: string;
    names?: Names;
    validFrom?: number | null;
    validTo?: number | null;
    active?: boolean;
    prices: Array<{ productId: number; price: number; kind?: 'RETAIL' | 'BUSINESS' }>;
  },
): Promise<number> {
  const row = await db
    .insertInto('campaign')
    .values({
      code: options.code ?? next('CMP'),
      store_code: options.store ?? 'WEB',
      valid_from: options.validFrom ?? null,
      valid_to: options.validTo ?? null,
      is_active: options.active ?? true,
      position: 0,
      image_url: null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('campaign_name')
    .values(
      Object.entries(options.names ?? { et: 'Kampaania' }).map(([language, name]) => ({
        campaign_id: row.id,
        language,
        name: name!,
        description: null,
      })),
    )
    .execute();
  if (options.prices.length > 0) {
    await db
      .insertInto('campaign_price')
      .values(
        options.prices.map((price, position) => ({
          campaign_id: row.id,
          product_id: price.productId,
          customer_kind: price.kind ?? 'RETAIL',
          price_cents: cents(price.price),
          position,
        })),
      )
      .execute();
  }
  return row.id;
}

export async function createProductList(
  db: Db,
  productIds: number[],
  options: { store?: string; code?: string; name?: string } = {},
): Promise<number> {
  const row = await db
    .insertInto('product_list')
    .values({
      code: options.code ?? next('LIST'),
      store_code: options.store ?? 'WEB',
      is_active: true,
      position: 0,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('product_list_name')
    .values({ product_list_id: row.id, language: 'et', name: options.name ?? 'Nimekiri' })
    .execute();
  if (productIds.length > 0) {
    await db
      .insertInto('product_list_item')
      .values(productIds.map((product_id, position) => ({ product_list_id: row.id, product_id, position })))
      .execute();
  }
  return row.id;
}

/** Sets a store's guest and logged-in discounts (percent). */
export async function setStoreDiscounts(db: Db, store: string, guest: number, loggedIn: number): Promise<void> {
  await db
    .updateTable('web_store')
    .set({ guest_discount_percent: guest, logged_in_discount_percent: loggedIn })
    .where('code', '=', store)
    .execute();
}

/**
 * `count` copies of a product's row, made in one statement (PostgreSQL): every column but the id and the
 * code, the codes `<prefix>` and the copy's number padded to `digits`. Their ids, in that order.
 */
export async function copiesOfProduct(db: Db, template: number, count: number, prefix: string, digits = 4): Promise<number[]> {
  const { rows: columns } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
    where table_schema = current_schema() and table_name = 'product' and column_name not in ('id', 'code') and is_generated = 'NEVER'`.execute(
    db,
  );
  const copied = sql.join(columns.map((column) => sql.ref(column.name)));
  const { rows } = await sql<{ id: number }>`
    insert into product (code, ${copied}) select ${prefix} || lpad(g::text, ${digits}, '0'), ${copied}
    from product, generate_series(1, ${count}) g where id = ${template} order by g returning id`.execute(db);
  return rows.map((row) => Number(row.id));
}
