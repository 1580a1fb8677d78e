import type { DatabaseHandle } from '../../../db/database.js';
import { sql, type Kysely } from 'kysely';
import { jsonArrayFrom as postgresJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';
import { preparedListQuery, preparedQuery } from '../../../db/prepared.js';
import type { CampaignPriceTable, PersonRole } from '../catalogue.tables.js';
import { toBases } from './product-card.mapper.js';
import { PRODUCT_BASE_COLUMNS, type BaseReader, type BaseRows, type ProductBase } from './product-card.types.js';
import { extrasRow, shopStockQuery, type ExtrasParts, type ExtrasRow, type ShopStockRow } from './product-details.repository.js';

// The product page's cold read (issue 19): the product row, its publisher, series and physical
// edition, and its document (product_document, kept by the triggers of migration 2026_11_24_1600)
// in one indexed read, instead of a dozen queries. What depends on the caller, the store or the
// language (visibility, price, category and shop names) is worked out from it per request.
//
// The campaign prices are read from campaign_price in the same statement, not from the document's
// `cp`: on PostgreSQL a campaign's writes no longer refresh the documents of the products it prices
// (migration 2026_12_13_1500), since that took each product's refresh lock until the campaign line
// committed (about 20 s at 100,000 prices) and a change of one's stores or categories waited that
// long. There `cp` follows only the campaign's jobs (campaigns.jobs.ts), for the release before,
// which reads it. SQLite's triggers keep `cp` exact, and its pages of bases read it (documentBaseReader).

/** The document's JSON, as the migration's documentBody() writes it. */
interface ProductDocument {
  s: string[];
  pe: Array<[number, string, string, PersonRole]>;
  ac: string[];
  c: number[];
  im: Array<[string, number | null, number | null]>;
  /** Exact on SQLite; on PostgreSQL as the campaign's jobs last left it (the page reads campaign_price instead). */
  cp: Array<[string, CampaignPriceTable['customer_kind'], number, number | null, number | null]>;
  eb: [number, string, string] | null;
}

/** A product as its page reads it: the card's base for the store and the extras' inputs. */
export interface ProductPageRow {
  base: ProductBase;
  extrasRow: ExtrasRow;
  parts: ExtrasParts;
  /** The versions of the category tree and the binding names as the same statement saw them (reference-cache.ts). */
  versions: PageReferenceVersions;
}

export interface PageReferenceVersions {
  category: number | undefined;
  binding: number | undefined;
}

/** The product's page row in the store and language; undefined when there is no such product or it has no document. */
export type ProductPageReader = (storeCode: string, id: number, language: Language) => Promise<ProductPageRow | undefined>;

const BASE_SELECTION = PRODUCT_BASE_COLUMNS.map((column) => `p.${column}` as const);

/**
 * The product's shop stock as one JSON value of the page's row: a statement fewer per page (a
 * statement costs about 5 µs before it reads anything). SQLite answers it as text, PostgreSQL as
 * the parsed array.
 */
function shopsColumn(database: DatabaseHandle, db: Kysely<Database>, language: Language) {
  const shops = shopStockQuery(db, sql.ref<number>('p.id'), language);
  const json = database.engine === 'sqlite' ? sqliteJsonArrayFrom(shops) : postgresJsonArrayFrom(shops);
  return sql<string | ShopStockRow[]>`${json}`.as('shops');
}

/** The product's active campaigns' prices, of every store (the caller's store is picked per request). */
function campaignsQuery(db: Kysely<Database>) {
  return db
    .selectFrom('campaign_price as cp')
    .innerJoin('campaign as cm', 'cm.id', 'cp.campaign_id')
    .select(['cm.store_code', 'cp.customer_kind', 'cp.price_cents', 'cm.valid_from', 'cm.valid_to'])
    .where('cp.product_id', '=', sql.ref<number>('p.id'))
    .where('cm.is_active', '=', true)
    .orderBy('cm.id')
    .orderBy('cp.customer_kind');
}

type CampaignPriceRow = { store_code: string } & BaseRows['campaigns'][number];

/** The product's campaign prices as one JSON value of the page's row, as the shops' (text on SQLite, parsed on PostgreSQL). */
function campaignsColumn(database: DatabaseHandle, db: Kysely<Database>) {
  const campaigns = campaignsQuery(db);
  const json = database.engine === 'sqlite' ? sqliteJsonArrayFrom(campaigns) : postgresJsonArrayFrom(campaigns);
  return sql<string | Array<Omit<CampaignPriceRow, 'product_id'>>>`${json}`.as('campaigns');
}

/**
 * A reference version as a column of the page's row: the page then needs no statement of its own to
 * check its kept category tree and binding names (two statements, about 9 µs of a cold page on SQLite).
 */
function versionColumn(db: Kysely<Database>, name: 'category' | 'binding') {
  return db.selectFrom('catalogue_reference_version').select('version').where('name', '=', sql.lit(name)).as(`${name}_version`);
}

const versionOf = (value: number | string | null): number | undefined => (value === null ? undefined : Number(value));

export function productPageReader(database: DatabaseHandle): ProductPageReader {
  const read = preparedQuery(database, (db, id: number, language: Language) =>
    extrasRow(db)
      .innerJoin('product_document as d', 'd.product_id', 'p.id')
      .select([
        ...BASE_SELECTION,
        'd.body',
        shopsColumn(database, db, language),
        campaignsColumn(database, db),
        versionColumn(db, 'category'),
        versionColumn(db, 'binding'),
      ])
      .where('p.id', '=', id),
  );
  return async (storeCode, id, language) => {
    const [row] = await read(id, language);
    if (!row) return undefined;
    const document = JSON.parse(row.body) as ProductDocument;
    const campaigns = typeof row.campaigns === 'string' ? (JSON.parse(row.campaigns) as CampaignPriceRow[]) : row.campaigns;
    const rows: BaseRows = {
      products: [row],
      ...documentRows(storeCode, id, document),
      // Not the document's cp (see above).
      campaigns: campaigns
        .filter((campaign) => campaign.store_code === storeCode)
        .map(({ customer_kind, price_cents, valid_from, valid_to }) => ({
          product_id: id,
          customer_kind,
          price_cents,
          valid_from,
          valid_to,
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
        shopRows: typeof row.shops === 'string' ? (JSON.parse(row.shops) as ShopStockRow[]) : row.shops,
      },
      versions: { category: versionOf(row.category_version), binding: versionOf(row.binding_version) },
    };
  };
}

/** What a base reads from the product's child tables (its store, authors, campaign prices), from its document. */
function documentRows(storeCode: string, id: number, document: Pick<ProductDocument, 's' | 'pe' | 'cp'>): Omit<BaseRows, 'products'> {
  return {
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
}

type ProductBaseRow = BaseRows['products'][number];
type ValuesOf<C extends readonly string[]> = { -readonly [K in keyof C]: C[K] extends keyof ProductBaseRow ? ProductBaseRow[C[K]] : never };
/** A product row's values in PRODUCT_BASE_COLUMNS' order (productRow checks the order against the types). */
type ProductValues = ValuesOf<typeof PRODUCT_BASE_COLUMNS>;

/**
 * A product row from its values in PRODUCT_BASE_COLUMNS' order, as one literal: an object grown
 * column by column cost 30 times as much (1.8 µs against 0.06 µs a row).
 */
function productRow(v: ProductValues): ProductBaseRow {
  return {
    id: v[0],
    code: v[1],
    name: v[2],
    type: v[3],
    language: v[4],
    binding_code: v[5],
    year: v[6],
    image_url: v[7],
    availability: v[8],
    delivery_time: v[9],
    web_stock: v[10],
    rating_sum: v[11],
    rating_count: v[12],
    released_at: v[13],
    is_active: v[14],
    hidden_web: v[15],
    hidden_business: v[16],
    shop_price_cents: v[17],
    original_price_cents: v[18],
    wholesale_price_cents: v[19],
    vat_rate_percent: v[20],
    reserved_quantity: v[21],
  };
}

/**
 * A page of bases on SQLite in one read that answers with two values: the product rows and their
 * documents, each as one JSON text. better-sqlite3 builds every row as an object through the
 * engine's API, about half a microsecond a value: the four reads of a page of 20 (product rows of
 * 21 columns, stores, authors, campaign prices) cost about 400 µs, this one about 220 µs. Each
 * document comes with its product's id (an aggregate's order is not promised, so the two are
 * matched by id, not by position); a product without a document is left out, as the product page
 * leaves it out.
 */
export function documentBaseReader(database: DatabaseHandle): BaseReader {
  const read = preparedListQuery(database, (db, ids: readonly number[]) =>
    db
      .selectFrom('product as p')
      .innerJoin('product_document as d', 'd.product_id', 'p.id')
      .select([
        sql<string>`json_group_array(json_array(${sql.join(BASE_SELECTION.map((column) => sql.ref(column)))}))`.as('products'),
        sql<string | null>`'[' || group_concat('[' || d.product_id || ',' || d.body || ']', ',') || ']'`.as('documents'),
      ])
      .where('p.id', 'in', ids),
  );
  return async (storeCode, ids) => {
    if (ids.length === 0) return new Map();
    const [row] = await read(ids);
    const values = JSON.parse(row?.products ?? '[]') as ProductValues[];
    const documents = new Map(JSON.parse(row?.documents ?? '[]') as Array<[number, ProductDocument]>);
    const rows: BaseRows = { products: [], inStore: [], authors: [], campaigns: [] };
    for (const productValues of values) {
      const product = productRow(productValues);
      const document = documents.get(product.id);
      if (document === undefined) continue;
      const { inStore, authors, campaigns } = documentRows(storeCode, product.id, document);
      rows.products.push(product);
      rows.inStore.push(...inStore);
      rows.authors.push(...authors);
      rows.campaigns.push(...campaigns);
    }
    return toBases(rows);
  };
}
