import { sql, type RawBuilder, type Selectable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import { GUEST, visibleProduct, type Caller } from '../catalogue/index.js';
import type { BackInStockRequestTable } from './back-in-stock.tables.js';

// All of back-in-stock's SQL, with the one definition of "available now" beside it.

export type BackInStockRow = Selectable<BackInStockRequestTable>;

/**
 * Whether the product (aliased `p`) can be bought on the web now: it is neither permanently out of
 * stock nor coming soon, and the web has units that orders do not hold, or it is an instant
 * download the back office marks AVAILABLE (a download has no stock). A stock import, a products
 * import or a back-office status change can make it true; the worker's scan looks for that.
 */
export function availableNow(): RawBuilder<boolean> {
  return sql<boolean>`(p.availability not in ('PERMANENTLY_OUT_OF_STOCK', 'COMING_SOON')
    and (p.web_stock - p.reserved_quantity > 0 or (p.availability = 'AVAILABLE' and p.delivery_time = 'INSTANT_DOWNLOAD')))`;
}

/** The product as the requester sees it: undefined when missing or hidden from them; `available` per availableNow. */
export async function requestableProduct(
  db: Db,
  storeCode: string,
  caller: Caller,
  productId: number,
): Promise<{ available: boolean } | undefined> {
  const row = await db
    .selectFrom('product as p')
    .select(availableNow().as('available'))
    .where('p.id', '=', productId)
    .where(visibleProduct(storeCode, caller))
    .executeTakeFirst();
  return row && { available: Boolean(row.available) };
}

export interface NewRequest {
  storeCode: string;
  productId: number;
  email: string;
  clientAccountId: number | null;
  language: string;
  audience: 'R' | 'B';
  now: number;
  expiresAt: number;
}

/**
 * One request per store, product and email. Asking again re-arms it: a new 14 days, and a request
 * already notified (the product sold out again since) becomes pending again. Answers the row and
 * whether it is new.
 */
export async function upsertRequest(db: Db, request: NewRequest): Promise<{ row: BackInStockRow; created: boolean }> {
  const existing = await db
    .selectFrom('back_in_stock_request')
    .select('id')
    .where('store_code', '=', request.storeCode)
    .where('product_id', '=', request.productId)
    .where('email', '=', request.email)
    .executeTakeFirst();
  const row = await db
    .insertInto('back_in_stock_request')
    .values({
      store_code: request.storeCode,
      product_id: request.productId,
      email: request.email,
      client_account_id: request.clientAccountId,
      language: request.language,
      audience: request.audience,
      created_at: request.now,
      expires_at: request.expiresAt,
      notified_at: null,
    })
    .onConflict((conflict) =>
      conflict.columns(['store_code', 'product_id', 'email']).doUpdateSet({
        expires_at: request.expiresAt,
        notified_at: null,
        language: request.language,
        // A guest's request taken over by the client who owns the address, never the other way.
        client_account_id: sql<number | null>`coalesce(${request.clientAccountId}, back_in_stock_request.client_account_id)`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, created: existing === undefined };
}

/** The client's requests in the store that have not expired, newest first, one page, and their count. */
export async function clientRequestPage(
  db: Db,
  owner: { clientAccountId: number; storeCode: string },
  now: number,
  slice: { offset: number; perPage: number },
): Promise<{ rows: Array<BackInStockRow & { product_code: string; product_name: string }>; total: number }> {
  const base = db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .where('r.client_account_id', '=', owner.clientAccountId)
    .where('r.store_code', '=', owner.storeCode)
    .where('r.expires_at', '>', now);
  const [rows, count] = await Promise.all([
    base
      .selectAll('r')
      .select(['p.code as product_code', 'p.name as product_name'])
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(slice.perPage)
      .offset(slice.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Deletes the client's own request in the store; false for any other id. */
export async function deleteClientRequest(db: Db, owner: { clientAccountId: number; storeCode: string }, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('back_in_stock_request')
    .where('id', '=', id)
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The (store, audience) pairs that have pending requests. */
export async function pendingScopes(db: Db, now: number): Promise<Array<{ store_code: string; audience: 'R' | 'B' }>> {
  return db
    .selectFrom('back_in_stock_request')
    .select(['store_code', 'audience'])
    .distinct()
    .where('notified_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** A caller who sees the audience's catalogue, for visibility only (the rule reads nothing but the kind). */
const AUDIENCE_CALLER: Record<'R' | 'B', Caller> = { R: GUEST, B: { ...GUEST, kind: 'BUSINESS' } };

/** Pending requests of the scope whose product the requester may see and is available now, oldest first. */
export async function dueRequestIds(db: Db, scope: { store_code: string; audience: 'R' | 'B' }, now: number, limit: number) {
  const rows = await db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .select('r.id')
    .where('r.notified_at', 'is', null)
    .where('r.expires_at', '>', now)
    .where('r.store_code', '=', scope.store_code)
    .where('r.audience', '=', scope.audience)
    .where(visibleProduct(scope.store_code, AUDIENCE_CALLER[scope.audience]))
    .where(availableNow())
    .orderBy('r.id')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Marks the request notified if nobody has: true for the one caller (of any process) that did it. */
export async function claimNotification(trx: Db, id: number, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('back_in_stock_request')
    .set({ notified_at: now })
    .where('id', '=', id)
    .where('notified_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * What the mail needs: the request, its product, the client's current email and language, and
 * whether that email is unconfirmed (modules/profile's table).
 */
export async function mailFacts(db: Db, id: number) {
  return db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .leftJoin('client_account as ca', 'ca.id', 'r.client_account_id')
    .leftJoin('app_user as u', 'u.id', 'ca.user_id')
    .leftJoin('unconfirmed_login_email as ule', 'ule.user_id', 'u.id')
    .select([
      'ule.user_id as unconfirmed_user',
      'r.id',
      'r.store_code',
      'r.product_id',
      'r.email',
      'r.language',
      'p.name as product_name',
      'u.email as user_email',
      'u.language as user_language',
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
}

/** Deletes requests past their 14 days, notified or not. */
export async function pruneBackInStockRequests(db: Db, now: number): Promise<number> {
  return deleteInBatches(db, 'back_in_stock_request', {
    key: 'id',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
}

/** The client account's login email and mail language. */
export async function clientEmail(
  db: Db,
  clientAccountId: number,
): Promise<{ email: string; language: string; confirmed: boolean } | undefined> {
  const row = await db
    .selectFrom('client_account as ca')
    .innerJoin('app_user as u', 'u.id', 'ca.user_id')
    // Whether the login email is confirmed (modules/profile's table): one that is not is its owner's.
    .leftJoin('unconfirmed_login_email as ule', 'ule.user_id', 'u.id')
    .select(['u.email', 'u.language', 'ule.user_id as unconfirmed'])
    .where('ca.id', '=', clientAccountId)
    .executeTakeFirst();
  return row && { email: row.email, language: row.language, confirmed: row.unconfirmed === null };
}
