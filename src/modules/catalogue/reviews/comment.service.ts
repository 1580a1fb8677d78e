import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { toRfc3339 } from '../../../db/time.js';
import { translate, type Language } from '../../../i18n/index.js';
import { invalidField, notFound } from '../../../infra/domain-error.js';
import { consumeRateLimit } from '../../../infra/rate-limit.js';
import { lockLiveClientAccount } from '../../client-account-lock/index.js';
import { refreshRating } from '../denormalised.repository.js';
import { ratingOf } from '../products/product-card.mapper.js';
import {
  authorNames,
  commentPage,
  countComments,
  deleteOwnComment,
  deleteRating,
  findComment,
  findSubmission,
  insertComment,
  lockProduct,
  ownRating,
  ratingTotals,
  upsertRating,
  type CommentFilter,
  type CommentRow,
} from './comment.repository.js';
import { COMMENT_MAX_CHARACTERS, type CommentWire, type RatingSummary } from './comment.schemas.js';

// Comments and ratings of products. Writes take the open transaction (the routes open it), so a
// rating and the product's totals change together.

/** New comments per client account: enough for a keen reader, too few for a spam run. */
export const COMMENT_RATE_LIMIT = { max: 10, windowMs: 10 * 60_000 };

/**
 * How long the same text again (same client, product and text) answers the first comment instead
 * of writing a second: a double click arrives within a second, a retry after a timeout on a poor
 * mobile connection, or the same text sent again with other stars, within a minute or two. Past it,
 * the same words again are taken as meant.
 */
export const COMMENT_RESUBMIT_WINDOW_MS = 5 * 60_000;

const AUTHOR_FIRST_NAME_MAX = 80;

/**
 * "Mari M." from the user's names; '' when there is no first name, so that the reader's
 * language decides how "Anonymous" reads (see toCommentWire).
 */
export function authorName(firstName: string | null, lastName: string | null): string {
  const first = [...(firstName ?? '').trim().replace(/\s+/g, ' ')].slice(0, AUTHOR_FIRST_NAME_MAX).join('').trim();
  if (first === '') return '';
  const initial = [...(lastName ?? '').trim()][0];
  return initial === undefined ? first : `${first} ${initial.toLocaleUpperCase()}.`;
}

export function toCommentWire(row: CommentRow, viewerId: number | null, language: Language): CommentWire {
  return {
    id: row.id,
    authorName: row.author_name === '' ? translate(language, 'catalogue.anonymous') : row.author_name,
    body: row.body,
    language: row.language,
    createdAt: toRfc3339(row.created_at),
    rating: row.rating,
    own: viewerId !== null && row.client_account_id === viewerId,
  };
}

/** The comment text trimmed; invalid input on `body` when nothing or too much is left. */
export function commentText(body: string): string {
  const text = body.trim();
  if (text === '') throw invalidField('body', 'validation.required', { field: 'body' });
  // Characters as people count them (code points), as the schema validator counts them too.
  if ([...text].length > COMMENT_MAX_CHARACTERS) {
    throw invalidField('body', 'validation.maxLength', { field: 'body', limit: COMMENT_MAX_CHARACTERS });
  }
  return text;
}

export async function listComments(db: Db, filter: CommentFilter, offset: number, limit: number) {
  const [total, rows] = await Promise.all([countComments(db, filter), commentPage(db, filter, offset, limit)]);
  return { total, rows };
}

export interface CommentInput {
  productId: number;
  clientAccountId: number;
  /** Already checked with commentText(). */
  body: string;
  rating?: number;
  language: Language;
  now: number;
}

/**
 * What identifies a comment's submit: the product and the text as stored (trimmed). The author is
 * the row's client account; the language the request was read in is not part of it, nor are the
 * stars: a comment shows its author's one rating of the product, not stars of its own, so the same
 * words with other stars are the same comment (see createComment).
 */
function submissionHash(input: CommentInput): string {
  const submitted = JSON.stringify([input.productId, input.body]);
  return createHash('sha256').update(submitted).digest('hex');
}

/**
 * Writes a comment and, when a rating comes with it, the client's rating and the product's totals.
 * The same text again within COMMENT_RESUBMIT_WINDOW_MS answers the comment the first one wrote
 * and writes no second one (nor counts against the rate limit); the client's comment writes are
 * serialised, so two at once make one comment. A rating sent with it is still the client's rating
 * of the product, as PUT /product/{id}/rating sets it: stars changed between two clicks of the same
 * text are the ones readers see next to it and the totals count (a repeat with the stars the client
 * has, or none, writes nothing at all). Otherwise it counts against the client's comment rate limit
 * first (429 past it).
 */
export async function createComment(trx: Transaction<Database>, input: CommentInput): Promise<CommentRow> {
  // The author before the product, as the erasure of a person takes them (their client account first, then their
  // rated products): two transactions taking them the other way round could deadlock on PostgreSQL. The author's
  // lock refuses an account erased since the token was read (401): the comment would outlive the erasure.
  await lockLiveClientAccount(trx, input.clientAccountId);
  if (input.rating !== undefined) await lockProduct(trx, input.productId);
  const hash = submissionHash(input);
  const after = input.now - COMMENT_RESUBMIT_WINDOW_MS;
  const earlier = await findSubmission(trx, { clientAccountId: input.clientAccountId, hash, after });
  if (earlier !== undefined) {
    if (input.rating !== undefined && (await ownRating(trx, input.productId, input.clientAccountId)) !== input.rating) {
      await rateProduct(trx, input.productId, input.clientAccountId, input.rating, input.now);
    }
    return commentById(trx, earlier);
  }
  await consumeRateLimit(trx, `catalogue:comment:${input.clientAccountId}`, COMMENT_RATE_LIMIT, input.now);
  const names = await authorNames(trx, input.clientAccountId);
  const id = await insertComment(trx, {
    productId: input.productId,
    clientAccountId: input.clientAccountId,
    authorName: authorName(names?.first_name ?? null, names?.last_name ?? null),
    body: input.body,
    language: input.language,
    createdAt: input.now,
    submissionHash: hash,
  });
  if (input.rating !== undefined) await rateProduct(trx, input.productId, input.clientAccountId, input.rating, input.now);
  return commentById(trx, id);
}

/** Sets the client's one rating of the product and recomputes the product's totals; the caller holds lockProduct. */
async function rateProduct(trx: Transaction<Database>, productId: number, clientAccountId: number, rating: number, now: number) {
  await upsertRating(trx, productId, clientAccountId, rating, now);
  await refreshRating(trx, productId);
}

async function commentById(trx: Transaction<Database>, id: number): Promise<CommentRow> {
  const row = await findComment(trx, id);
  if (!row) throw new Error(`Comment ${id} vanished inside its own transaction`);
  return row;
}

/** Deletes the client's own comment; not found when there is no such comment of theirs on the product. */
export async function deleteComment(db: Db, productId: number, commentId: number, clientAccountId: number): Promise<void> {
  if (!(await deleteOwnComment(db, productId, commentId, clientAccountId))) throw notFound('catalogue.commentNotFound', { id: commentId });
}

function summaryOf(row: { rating_sum: number; rating_count: number; own: number | null }): RatingSummary {
  return { ...ratingOf({ ratingSum: Number(row.rating_sum), ratingCount: Number(row.rating_count) }), own: row.own };
}

const EMPTY_SUMMARY: RatingSummary = { average: null, count: 0, own: null };

/** The product's average and count as stored with it, and the caller's own rating. */
export async function ratingSummary(db: Db, productId: number, clientAccountId: number | null): Promise<RatingSummary> {
  const row = await ratingTotals(db, productId, clientAccountId);
  return row ? summaryOf(row) : EMPTY_SUMMARY;
}

/**
 * Sets (rating) or removes (null) the client's one rating of the product and recomputes the
 * product's totals in the same transaction; answers the totals after the change.
 */
export async function setRating(
  trx: Transaction<Database>,
  productId: number,
  clientAccountId: number,
  rating: number | null,
  now: number,
): Promise<RatingSummary> {
  // The rater's lock first, as a comment and the erasure take it; an erased rater is a 401.
  await lockLiveClientAccount(trx, clientAccountId);
  await lockProduct(trx, productId);
  if (rating === null) {
    if (await deleteRating(trx, productId, clientAccountId)) await refreshRating(trx, productId);
  } else await rateProduct(trx, productId, clientAccountId, rating, now);
  const row = await ratingTotals(trx, productId, clientAccountId);
  return row ? summaryOf(row) : EMPTY_SUMMARY;
}
