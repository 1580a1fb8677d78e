import { sql, type ExpressionBuilder, type RawBuilder, type Selectable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
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

/** A logged-in client's request: its language is its user's, read by the statement that stores it. */
export type ClientRequest = Omit<NewRequest, 'clientAccountId' | 'language'> & { clientAccountId: number };

/**
 * A logged-in client's request (its login email is confirmed, so the request is too). One request
 * per store, product and client account: a request belongs to the account that made it, so a
 * person's retail and business accounts (one login email) each have their own, listed and told
 * apart. Asking again re-arms the account's own: a new 14 days, and a request already notified (the
 * product sold out again since) becomes pending again. Without one, a guest's request for the
 * address, confirmed or not, becomes the client's, confirmed, its link no longer needed (the one
 * mailbox would otherwise be told twice); never another account's. Either way it takes the language
 * of the client's user and the account's audience now. Answers the row and whether it is new. The
 * caller holds the client account's lock (PostgreSQL), so two of one client's requests take turns
 * and exactly one of the same request sent at once is new. Takes no lock an erasure takes after
 * deleting the requests, so it cannot deadlock with one.
 */
export async function upsertRequest(db: Db, request: ClientRequest): Promise<{ row: BackInStockRow; created: boolean }> {
  const clientLanguage = (eb: ExpressionBuilder<Database, 'back_in_stock_request'>) =>
    eb
      .selectFrom('client_account as ca')
      .innerJoin('app_user as u', 'u.id', 'ca.user_id')
      .select('u.language')
      .where('ca.id', '=', request.clientAccountId);
  const rearm = (owner: 'own' | 'guest') =>
    db
      .updateTable('back_in_stock_request')
      .set({
        expires_at: request.expiresAt,
        notified_at: null,
        confirmed_at: sql<number>`coalesce(confirmed_at, ${request.now})`,
        token_hash: null,
        language: clientLanguage,
        audience: request.audience,
        client_account_id: request.clientAccountId,
      })
      .where('store_code', '=', request.storeCode)
      .where('product_id', '=', request.productId)
      .where((eb) =>
        owner === 'own'
          ? eb('client_account_id', '=', request.clientAccountId)
          : eb.and([eb('client_account_id', 'is', null), eb('email', '=', request.email)]),
      )
      .returningAll()
      .executeTakeFirst();
  const rearmed = (await rearm('own')) ?? (await rearm('guest'));
  if (rearmed) return { row: rearmed, created: false };
  const inserted = await db
    .insertInto('back_in_stock_request')
    .values({
      store_code: request.storeCode,
      product_id: request.productId,
      email: request.email,
      client_account_id: request.clientAccountId,
      language: clientLanguage,
      audience: request.audience,
      created_at: request.now,
      expires_at: request.expiresAt,
      notified_at: null,
      confirmed_at: request.now,
      token_hash: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: inserted, created: true };
}

/**
 * The condition of back_in_stock_request_guest_uq (migration 2026_12_01_0500), word for word: an
 * upsert names a partial index by its columns and its condition, which SQLite matches as written.
 */
const GUEST_REQUEST = sql<boolean>`client_account_id is null`;

/**
 * A guest's request, unconfirmed until the address follows the mailed link, which works until
 * `linkExpiresAt` (the row is pruned then if nobody followed it). A request the address confirmed
 * and that still waits is left alone, as is a client's (its own request, told at its login email):
 * undefined then, and no mail is due. Otherwise the row, new or there (expired, notified since,
 * or still unconfirmed), waits for a confirmation again; the link of a confirmation made before no
 * longer works, and an unconfirmed row's link (mailed or about to be) keeps working until the next
 * mail replaces it. Answers the id of the row that waits.
 */
export async function armGuestRequest(
  trx: Db,
  request: Omit<NewRequest, 'clientAccountId' | 'expiresAt'> & { linkExpiresAt: number },
): Promise<number | undefined> {
  // The address's owner asked as a client already: that request is told at the address.
  const clients = await trx
    .selectFrom('back_in_stock_request')
    .select('id')
    .where('store_code', '=', request.storeCode)
    .where('product_id', '=', request.productId)
    .where('email', '=', request.email)
    .where('client_account_id', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  if (clients) return undefined;
  const row = await trx
    .insertInto('back_in_stock_request')
    .values({
      store_code: request.storeCode,
      product_id: request.productId,
      email: request.email,
      client_account_id: null,
      language: request.language,
      audience: request.audience,
      created_at: request.now,
      expires_at: request.linkExpiresAt,
      notified_at: null,
      confirmed_at: null,
      token_hash: null,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['store_code', 'product_id', 'email'])
        .where(GUEST_REQUEST)
        .doUpdateSet({
          expires_at: request.linkExpiresAt,
          notified_at: null,
          confirmed_at: null,
          token_hash: sql<string | null>`case when back_in_stock_request.confirmed_at is null then back_in_stock_request.token_hash end`,
          language: request.language,
        })
        .where((eb) =>
          eb.and([
            eb('back_in_stock_request.client_account_id', 'is', null),
            eb.or([
              eb('back_in_stock_request.confirmed_at', 'is', null),
              eb('back_in_stock_request.notified_at', 'is not', null),
              eb('back_in_stock_request.expires_at', '<=', request.now),
            ]),
          ]),
        ),
    )
    .returning('id')
    .executeTakeFirst();
  return row && Number(row.id);
}

/**
 * Locks the row of the client account's user (PostgreSQL; SQLite has one writer): a confirmed change of
 * the login email writes that row before it moves the person's requests (moveUserRequests), so under
 * this lock the address read next is the one the change left, and a request written after it is moved by it.
 */
export async function lockUserOfClientAccount(trx: Db, clientAccountId: number): Promise<void> {
  const userOfAccount = trx.selectFrom('client_account').select('client_account.user_id').where('client_account.id', '=', clientAccountId);
  await lockRowsOnPostgres(trx, trx.selectFrom('app_user').select('app_user.id').where('app_user.id', '=', userOfAccount));
}

/** The fields of a request that a merge of two requests for one mailbox weighs. */
export type RequestState = Pick<BackInStockRow, 'id' | 'store_code' | 'product_id' | 'notified_at' | 'confirmed_at' | 'expires_at'>;

const STATE = ['id', 'store_code', 'product_id', 'notified_at', 'confirmed_at', 'expires_at'] as const;

/** Puts the requests of every client account of the user at `email`; answers them. */
export function moveUserRequests(db: Db, userId: number, email: string): Promise<RequestState[]> {
  return db
    .updateTable('back_in_stock_request')
    .set({ email })
    .where('client_account_id', 'in', (eb) => eb.selectFrom('client_account').select('id').where('user_id', '=', userId))
    .returning(STATE)
    .execute();
}

/** The guests' requests made with the address. */
export function guestRequestsAt(db: Db, email: string): Promise<RequestState[]> {
  return db.selectFrom('back_in_stock_request').select(STATE).where('email', '=', email).where('client_account_id', 'is', null).execute();
}

export async function deleteRequest(db: Db, id: number): Promise<void> {
  await db.deleteFrom('back_in_stock_request').where('id', '=', id).execute();
}

/** The request waits again (or still) to be told, until `expiresAt`. */
export async function keepWaiting(db: Db, id: number, expiresAt: number): Promise<void> {
  await db.updateTable('back_in_stock_request').set({ notified_at: null, expires_at: expiresAt }).where('id', '=', id).execute();
}

/** A guest's request waiting for its confirmation mail, with what the mail needs. */
export function unconfirmedRequest(db: Db, id: number) {
  return db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .select(['r.id', 'r.store_code', 'r.product_id', 'r.email', 'r.language', 'r.expires_at', 'p.name as product_name'])
    .where('r.id', '=', id)
    .where('r.confirmed_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Stores the hash of the token about to be mailed, and how long its link works, if the request is
 * as it was read: still unconfirmed and not re-armed or taken over since (false then: no mail).
 */
export async function setRequestToken(
  db: Db,
  request: { id: number; expiresAtRead: number },
  tokenHash: string,
  expiresAt: number,
): Promise<boolean> {
  const result = await db
    .updateTable('back_in_stock_request')
    .set({ token_hash: tokenHash, expires_at: expiresAt })
    .where('id', '=', request.id)
    .where('confirmed_at', 'is', null)
    .where('client_account_id', 'is', null)
    .where('expires_at', '=', request.expiresAtRead)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The request a token was mailed for, followed or not, while it lasts. */
export function findRequestByToken(db: Db, tokenHash: string, now: number): Promise<BackInStockRow | undefined> {
  return db
    .selectFrom('back_in_stock_request')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Confirms the request the token was mailed for, for the request's lifetime from now; false when it
 * is not (or no longer) that token's unconfirmed request: another confirmation took it first.
 */
export async function markRequestConfirmed(db: Db, id: number, tokenHash: string, now: number, expiresAt: number): Promise<boolean> {
  const result = await db
    .updateTable('back_in_stock_request')
    .set({ confirmed_at: now, expires_at: expiresAt })
    .where('id', '=', id)
    .where('token_hash', '=', tokenHash)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findRequestById(db: Db, id: number): Promise<BackInStockRow | undefined> {
  return db.selectFrom('back_in_stock_request').selectAll().where('id', '=', id).executeTakeFirst();
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
    .where('confirmed_at', 'is not', null)
    .where('expires_at', '>', now)
    .execute();
}

/** A caller who sees the audience's catalogue, for visibility only (the rule reads nothing but the kind). */
const AUDIENCE_CALLER: Record<'R' | 'B', Caller> = { R: GUEST, B: { ...GUEST, kind: 'BUSINESS' } };

/**
 * Pending confirmed requests of the scope whose product the requester may see and is available now,
 * oldest first: each with the mailbox (store, product, email) its mail goes to.
 */
export async function dueRequests(db: Db, scope: { store_code: string; audience: 'R' | 'B' }, now: number, limit: number) {
  const rows = await db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .select(['r.id', 'r.product_id', 'r.email'])
    .where('r.notified_at', 'is', null)
    .where('r.confirmed_at', 'is not', null)
    .where('r.expires_at', '>', now)
    .where('r.store_code', '=', scope.store_code)
    .where('r.audience', '=', scope.audience)
    .where(visibleProduct(scope.store_code, AUDIENCE_CALLER[scope.audience]))
    .where(availableNow())
    .orderBy('r.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), storeCode: scope.store_code, productId: Number(row.product_id), email: row.email }));
}

/** Where one restock mail goes: every due request of the store for the product at the address shares it. */
export interface Mailbox {
  storeCode: string;
  productId: number;
  email: string;
}

/**
 * Marks notified, in one conditional update (notified_at from null), every request of the mailbox
 * that is due now (confirmed, not expired, its product visible to its audience and available): a
 * person's retail and business accounts, or a guest's and a client's request with one address.
 * Answers the requests this caller marked, clients' first: none when another caller (of any
 * process) marked them first, so one mail goes per mailbox.
 */
export async function claimMailbox(trx: Db, mailbox: Mailbox, now: number): Promise<Array<{ id: number; clientAccountId: number | null }>> {
  const visibleToRequester = sql<boolean>`((back_in_stock_request.audience = 'R' and ${visibleProduct(mailbox.storeCode, AUDIENCE_CALLER.R)})
    or (back_in_stock_request.audience = 'B' and ${visibleProduct(mailbox.storeCode, AUDIENCE_CALLER.B)}))`;
  const rows = await trx
    .updateTable('back_in_stock_request')
    .set({ notified_at: now })
    .where('store_code', '=', mailbox.storeCode)
    .where('product_id', '=', mailbox.productId)
    .where('email', '=', mailbox.email)
    .where('notified_at', 'is', null)
    .where('confirmed_at', 'is not', null)
    .where('expires_at', '>', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product as p')
          .select(sql<number>`1`.as('one'))
          .where('p.id', '=', mailbox.productId)
          .where(availableNow())
          .where(visibleToRequester),
      ),
    )
    .returning(['id', 'client_account_id'])
    .execute();
  return rows
    .map((row) => ({ id: Number(row.id), clientAccountId: row.client_account_id === null ? null : Number(row.client_account_id) }))
    .sort((a, b) => Number(a.clientAccountId === null) - Number(b.clientAccountId === null) || a.id - b.id);
}

/**
 * What the mail needs: the request, its product, and for a client's request its account and the
 * user's language now (whether the client's login email is confirmed is profile's to say: the
 * handler asks the function the worker hands it).
 */
export async function mailFacts(db: Db, id: number) {
  return db
    .selectFrom('back_in_stock_request as r')
    .innerJoin('product as p', 'p.id', 'r.product_id')
    .leftJoin('client_account as ca', 'ca.id', 'r.client_account_id')
    .leftJoin('app_user as u', 'u.id', 'ca.user_id')
    .select([
      'r.id',
      'r.client_account_id',
      'r.confirmed_at',
      'r.store_code',
      'r.product_id',
      'r.email',
      'r.language',
      'p.name as product_name',
      'u.language as user_language',
      'ca.status as account_status',
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
}

/** Deletes requests past their 14 days, notified or not, and guests' requests whose confirmation link expired unfollowed. */
export async function pruneBackInStockRequests(db: Db, now: number): Promise<number> {
  return deleteInBatches(db, 'back_in_stock_request', {
    key: 'id',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
}
