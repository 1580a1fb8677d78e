import type { Kysely } from 'kysely';
import type { AccountType, Database } from '../../src/db/schema.js';
import { hashToken } from '../../src/infra/tokens.js';
import { createCustomer } from './customers.js';
import type { TestApp } from './test-app.js';

// Fixtures and requests for the comment and rating tests. Retail tokens come from the real
// registration flow (registerVerified); business and wholesale accounts, which need the back
// office, are written straight to the tables here.

/** A company client account (BUSINESS by default) with a valid access token. */
export async function companyClientToken(
  db: Kysely<Database>,
  options: { kind?: Exclude<AccountType, 'SIMPLE'>; store?: string; firstName?: string | null; lastName?: string | null } = {},
): Promise<string> {
  const firstName = options.firstName === undefined ? 'Jaan' : options.firstName;
  const lastName = options.lastName === undefined ? 'tamm' : options.lastName;
  return (await createCustomer(db, { kind: options.kind ?? 'BUSINESS', store: options.store, firstName, lastName })).token;
}

/** The client account a token belongs to. */
export async function clientAccountOf(db: Kysely<Database>, token: string): Promise<number> {
  const row = await db
    .selectFrom('access_token')
    .select('client_account_id')
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirstOrThrow();
  return row.client_account_id;
}

/** The user behind a token, to change their names. */
export async function setNamesOf(db: Kysely<Database>, token: string, firstName: string | null, lastName: string | null): Promise<void> {
  const row = await db.selectFrom('access_token').select('user_id').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
  await db.updateTable('app_user').set({ first_name: firstName, last_name: lastName }).where('id', '=', row.user_id).execute();
}

/** The product's stored rating totals next to what its rating rows add up to. */
export async function ratingTotals(db: Kysely<Database>, productId: number) {
  const stored = await db
    .selectFrom('product')
    .select(['rating_sum', 'rating_count'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  const rows = await db.selectFrom('product_rating').select('rating').where('product_id', '=', productId).execute();
  return {
    stored: { sum: Number(stored.rating_sum), count: Number(stored.rating_count) },
    actual: { sum: rows.reduce((sum, row) => sum + row.rating, 0), count: rows.length },
  };
}

export async function countRows(db: Kysely<Database>, table: 'product_comment' | 'product_rating'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

type Headers = Record<string, string>;

export function auth(token: string | undefined, extra: Headers = {}): Headers {
  return { store: 'WEB', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...extra };
}

export function postComment(t: TestApp, token: string | undefined, productId: number | string, payload: unknown, headers: Headers = {}) {
  return t.app.inject({ method: 'POST', url: `/product/${productId}/comments`, headers: auth(token, headers), payload: payload as object });
}

export function listComments(t: TestApp, token: string | undefined, productId: number | string, query = '', headers: Headers = {}) {
  return t.app.inject({ method: 'GET', url: `/product/${productId}/comments${query}`, headers: auth(token, headers) });
}

export function deleteComment(
  t: TestApp,
  token: string | undefined,
  productId: number | string,
  commentId: number | string,
  headers: Headers = {},
) {
  return t.app.inject({ method: 'DELETE', url: `/product/${productId}/comments/${commentId}`, headers: auth(token, headers) });
}

export function rate(t: TestApp, token: string | undefined, productId: number | string, payload: unknown, headers: Headers = {}) {
  return t.app.inject({ method: 'PUT', url: `/product/${productId}/rating`, headers: auth(token, headers), payload: payload as object });
}

export function getRating(t: TestApp, token: string | undefined, productId: number | string, headers: Headers = {}) {
  return t.app.inject({ method: 'GET', url: `/product/${productId}/rating`, headers: auth(token, headers) });
}

export function unrate(t: TestApp, token: string | undefined, productId: number | string, headers: Headers = {}) {
  return t.app.inject({ method: 'DELETE', url: `/product/${productId}/rating`, headers: auth(token, headers) });
}
