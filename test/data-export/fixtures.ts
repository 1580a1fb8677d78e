import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { SessionActionType } from '../../src/modules/tracking/index.js';
import { addExportUser } from '../../src/modules/data-export/export-user.service.js';

// Rows for the export tests, written straight into the tables (the demo seed is someone else's).

export const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

/** A time as the export's createdFrom/createdTo take it: `YYYY-MM-DD HH:MM:SS`, UTC. */
export const ymdHis = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Waits `ms` (nothing when it is not positive). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The start of the next second, once it has come. */
export async function nextSecond(): Promise<number> {
  const start = Math.ceil((Date.now() + 1) / 1000) * 1000;
  await sleep(start - Date.now());
  return start;
}

export function basic(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
}

let users = 0;
/** A new export user and its Authorization header. */
export async function exportUser(
  db: Kysely<Database>,
  cidrs: string[] = [],
): Promise<{ name: string; password: string; authorization: string }> {
  users += 1;
  const name = `partner-${users}`;
  const { password } = await addExportUser(db, name, cidrs, Date.now());
  return { name, password, authorization: basic(name, password) };
}

export interface SaleFixture {
  order: string;
  createdAt: number;
  createdNav?: number | null;
  products?: string[];
  client?: string;
  session?: string | null;
  shop?: string | null;
  sourceType?: 'ONLINE' | 'OFFLINE';
}

export async function insertSales(db: Kysely<Database>, sales: SaleFixture[]): Promise<void> {
  for (const sale of sales) {
    const { id } = await db
      .insertInto('sales_history')
      .values({
        order_code: sale.order,
        client_code: sale.client ?? 'W1000001',
        client_type: 'PYSIKLIENT',
        source_type: sale.sourceType ?? 'ONLINE',
        city: 'Tallinn',
        session_id: sale.session === undefined ? 'sess-1' : sale.session,
        delivery_method: 'COURIER',
        shop_code: sale.shop ?? null,
        created_at: sale.createdAt,
        created_nav: sale.createdNav === undefined ? sale.createdAt - 60_000 : sale.createdNav,
        updated_at: sale.createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const products = sale.products ?? ['P-1'];
    if (products.length > 0) {
      await db
        .insertInto('sales_history_item')
        .values(products.map((product_code, position) => ({ sales_history_id: id, position, product_code })))
        .execute();
    }
  }
}

/** `count` sales one second apart from `start`, orders `${prefix}00001`.. */
export async function insertSaleSeries(db: Kysely<Database>, count: number, start = T0, prefix = 'WT'): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({
    order_code: `${prefix}${String(i + 1).padStart(5, '0')}`,
    client_code: 'W1000001',
    client_type: 'PYSIKLIENT' as const,
    source_type: 'ONLINE' as const,
    city: 'Tartu',
    session_id: null,
    delivery_method: 'PARCEL',
    shop_code: null,
    created_at: start + i * 1000,
    created_nav: null,
    updated_at: start + i * 1000,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('sales_history')
      .values(rows.slice(i, i + 500))
      .execute();
}

export async function insertSessionActions(
  db: Kysely<Database>,
  count: number,
  start = T0,
  client: (i: number) => string | null = (i) => (i % 2 === 0 ? null : `W${1000000 + i}`),
): Promise<void> {
  const types: SessionActionType[] = ['VIEW', 'ADD_TO_WISHLIST', 'ADD_TO_BASKET'];
  const rows = Array.from({ length: count }, (_, i) => ({
    session_id: `s-${i % 7}`,
    store_code: i % 3 === 0 ? 'WEB2' : 'WEB',
    product_code: `P-${i % 11}`,
    client_code: client(i),
    action_type: types[i % 3]!,
    created_at: start + i * 1000,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('session_action')
      .values(rows.slice(i, i + 500))
      .execute();
}

export async function insertShop(db: Kysely<Database>, code: string, createdAt: number, names: Record<string, string>): Promise<void> {
  const { id } = await db
    .insertInto('shop')
    .values({
      code,
      city: 'Tartu',
      address: null,
      phone: null,
      email: null,
      web_stock: true,
      is_active: true,
      position: 1,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const entries = Object.entries(names).map(([language, name]) => ({ shop_id: id, language, name, opening_hours: null }));
  if (entries.length > 0) await db.insertInto('shop_name').values(entries).execute();
}

let emails = 0;
/** A user with one client account created at `createdAt`; returns the client account id. */
export async function insertClient(
  db: Kysely<Database>,
  code: string,
  createdAt: number,
  person: { gender?: string | null; birthday?: string | null } = {},
): Promise<number> {
  emails += 1;
  const { id: userId } = await db
    .insertInto('app_user')
    .values({
      email: `client${emails}.${Date.now()}@example.ee`,
      password_hash: null,
      email_verified: true,
      activated_at: createdAt,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      reset_token_hash: null,
      reset_expires_at: null,
      first_name: 'Mari',
      last_name: 'Maasikas',
      phone: null,
      birthday: person.birthday === undefined ? '1990-05-17' : person.birthday,
      gender: person.gender === undefined ? 'FEMALE' : person.gender,
      newsletter: false,
      terms_accepted_at: createdAt,
      language: 'et',
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { id } = await db
    .insertInto('client_account')
    .values({
      code,
      user_id: userId,
      store_code: 'WEB',
      type: 'SIMPLE',
      company_id: null,
      role: 'CLIENT',
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** A category with names; returns its id. */
export async function insertCategory(
  db: Kysely<Database>,
  code: string,
  parentId: number | null,
  level: number,
  names: Record<string, string>,
  store = 'WEB',
): Promise<number> {
  const { id } = await db
    .insertInto('category')
    .values({ code, store_code: store, parent_id: parentId, level, position: 1, is_active: true, created_at: T0, updated_at: T0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const entries = Object.entries(names).map(([language, name]) => ({ category_id: id, language, name, description: null }));
  if (entries.length > 0) await db.insertInto('category_name').values(entries).execute();
  return id;
}

export interface ProductFixture {
  code: string;
  createdAt: number;
  type?: 'BOOK' | 'EBOOK';
  shopPriceCents?: number;
  originalPriceCents?: number | null;
  physicalBookId?: number | null;
  publisherId?: number | null;
  isActive?: boolean;
  stores?: string[];
  webStock?: number;
}

export async function insertProduct(db: Kysely<Database>, product: ProductFixture): Promise<number> {
  const { id } = await db
    .insertInto('product')
    .values({
      code: product.code,
      ean: null,
      type: product.type ?? 'BOOK',
      name: `Raamat ${product.code}`,
      description: null,
      language: 'ET',
      binding_code: null,
      year: 2025,
      pages: 200,
      width_mm: null,
      height_mm: null,
      depth_mm: null,
      weight_g: null,
      publisher_id: product.publisherId ?? null,
      series_id: null,
      series_number: null,
      physical_book_id: product.physicalBookId ?? null,
      shop_price_cents: product.shopPriceCents ?? 2000,
      original_price_cents: product.originalPriceCents ?? null,
      wholesale_price_cents: null,
      vat_rate_percent: 9,
      availability: 'AVAILABLE',
      delivery_time: 'DAYS_1_7',
      web_stock: product.webStock ?? 3,
      image_url: null,
      is_active: product.isActive ?? true,
      hidden_web: false,
      hidden_business: false,
      released_at: null,
      created_at: product.createdAt,
      updated_at: product.createdAt + 5000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const stores = product.stores ?? ['WEB'];
  if (stores.length > 0)
    await db
      .insertInto('product_store')
      .values(stores.map((store_code) => ({ product_id: id, store_code })))
      .execute();
  return id;
}
