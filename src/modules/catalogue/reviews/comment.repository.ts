import type { Db } from '../../../db/database.js';
import { lockRowsOnPostgres } from '../../../db/row-lock.js';
import type { Caller } from '../caller.js';
import { visibleProduct } from '../visibility.js';

export interface CommentRow {
  id: number;
  client_account_id: number;
  author_name: string;
  body: string;
  language: string;
  created_at: number;
  rating: number | null;
}

export interface CommentFilter {
  productId: number;
  language?: string;
}

/** Comments with their author's current rating of the same product. */
function commentRows(db: Db) {
  return db
    .selectFrom('product_comment')
    .leftJoin('product_rating', (join) =>
      join
        .onRef('product_rating.product_id', '=', 'product_comment.product_id')
        .onRef('product_rating.client_account_id', '=', 'product_comment.client_account_id'),
    )
    .select([
      'product_comment.id',
      'product_comment.client_account_id',
      'product_comment.author_name',
      'product_comment.body',
      'product_comment.language',
      'product_comment.created_at',
      'product_rating.rating',
    ]);
}

/** One page of a product's comments, newest first (the product_comment_product_idx order). */
export async function commentPage(db: Db, filter: CommentFilter, offset: number, limit: number): Promise<CommentRow[]> {
  let query = commentRows(db).where('product_comment.product_id', '=', filter.productId);
  if (filter.language !== undefined) query = query.where('product_comment.language', '=', filter.language);
  return query.orderBy('product_comment.created_at', 'desc').orderBy('product_comment.id', 'desc').limit(limit).offset(offset).execute();
}

export async function countComments(db: Db, filter: CommentFilter): Promise<number> {
  let query = db.selectFrom('product_comment').where('product_id', '=', filter.productId);
  if (filter.language !== undefined) query = query.where('language', '=', filter.language);
  const row = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return Number(row.total);
}

export async function findComment(db: Db, commentId: number): Promise<CommentRow | undefined> {
  return commentRows(db).where('product_comment.id', '=', commentId).executeTakeFirst();
}

export interface NewComment {
  productId: number;
  clientAccountId: number;
  authorName: string;
  body: string;
  language: string;
  createdAt: number;
  submissionHash: string;
}

export async function insertComment(db: Db, comment: NewComment): Promise<number> {
  const row = await db
    .insertInto('product_comment')
    .values({
      product_id: comment.productId,
      client_account_id: comment.clientAccountId,
      author_name: comment.authorName,
      body: comment.body,
      language: comment.language,
      created_at: comment.createdAt,
      submission_hash: comment.submissionHash,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The id of the client's newest comment with this submission hash (which names the product and the
 * text), written after `after`: one seek of product_comment_submission_idx.
 */
export async function findSubmission(
  db: Db,
  submission: { clientAccountId: number; hash: string; after: number },
): Promise<number | undefined> {
  const row = await db
    .selectFrom('product_comment')
    .select('id')
    .where('client_account_id', '=', submission.clientAccountId)
    .where('submission_hash', '=', submission.hash)
    .where('created_at', '>', submission.after)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Deletes the comment only when it is the client's own on this product; false otherwise. */
export async function deleteOwnComment(db: Db, productId: number, commentId: number, clientAccountId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('product_comment')
    .where('id', '=', commentId)
    .where('product_id', '=', productId)
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The first and last name of the user behind a client account. */
export async function authorNames(
  db: Db,
  clientAccountId: number,
): Promise<{ first_name: string | null; last_name: string | null } | undefined> {
  return db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.first_name', 'app_user.last_name'])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
}

/**
 * Serialises rating changes of one product; call it first in the transaction. On PostgreSQL two
 * transactions that each add a rating would otherwise both recompute the sum from a snapshot
 * without the other's row, and the later write would drop one. NO KEY UPDATE, taken before any
 * insert that references the product (whose key-share lock would make a later upgrade deadlock),
 * leaves plain comment inserts unblocked. SQLite transactions (begin immediate) are serial already.
 */
export async function lockProduct(trx: Db, productId: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('product').select('id').where('id', '=', productId), 'no key update');
}

export async function upsertRating(trx: Db, productId: number, clientAccountId: number, rating: number, now: number): Promise<void> {
  await trx
    .insertInto('product_rating')
    .values({ product_id: productId, client_account_id: clientAccountId, rating, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.columns(['product_id', 'client_account_id']).doUpdateSet({ rating, updated_at: now }))
    .execute();
}

export async function deleteRating(trx: Db, productId: number, clientAccountId: number): Promise<boolean> {
  const result = await trx
    .deleteFrom('product_rating')
    .where('product_id', '=', productId)
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface RatingRow {
  rating_sum: number;
  rating_count: number;
  own: number | null;
}

/** The product's stored rating totals and the client's own rating (null for a guest). */
export async function ratingTotals(db: Db, productId: number, clientAccountId: number | null): Promise<RatingRow | undefined> {
  const row = await db.selectFrom('product').select(['rating_sum', 'rating_count']).where('id', '=', productId).executeTakeFirst();
  if (!row) return undefined;
  if (clientAccountId === null) return { ...row, own: null };
  return { ...row, own: await ownRating(db, productId, clientAccountId) };
}

/**
 * Of `productIds`, those the client could rate now and has not: visible to them in the store (a hidden
 * one's rating is a 404) and without their rating. What a feedback request asks about (modules/orders).
 */
export async function unratedVisibleAmong(
  db: Db,
  viewer: { storeCode: string; caller: Caller; clientAccountId: number },
  productIds: readonly number[],
): Promise<Set<number>> {
  if (productIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('product as p')
    .select('p.id')
    .where('p.id', 'in', productIds)
    .where(visibleProduct(viewer.storeCode, viewer.caller))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('product_rating as r')
            .select('r.product_id')
            .whereRef('r.product_id', '=', 'p.id')
            .where('r.client_account_id', '=', viewer.clientAccountId),
        ),
      ),
    )
    .execute();
  return new Set(rows.map((row) => Number(row.id)));
}

/** The client's rating of the product; null without one. */
export async function ownRating(db: Db, productId: number, clientAccountId: number): Promise<number | null> {
  const own = await db
    .selectFrom('product_rating')
    .select('rating')
    .where('product_id', '=', productId)
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
  return own?.rating ?? null;
}
