import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/database.js';
import { preparedQuery } from '../db/prepared.js';
import type { AccountType, Database } from '../db/schema.js';
import { hashToken, isTokenShaped } from '../infra/tokens.js';
import { HttpError } from './errors.js';

/** Who a bearer token belongs to: user, client account, store and role. */
export interface Principal {
  tokenHash: string;
  userId: number;
  clientAccountId: number;
  clientCode: string;
  storeCode: string;
  role: AccountType;
}

const unauthorized = () =>
  new HttpError(401, 'auth.unauthorized', {}, { 'WWW-Authenticate': 'Bearer realm="storefront", error="invalid_token"' });

/** The bearer token of the request, or undefined when there is none. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized();
  return match[1];
}

/**
 * Resolves the bearer token to its principal; 401 when missing, unknown, expired or revoked, and
 * when it was issued for another web store than the one the request is scoped to.
 */
export async function authenticate(db: Kysely<Database>, request: FastifyRequest): Promise<Principal> {
  const tokenHash = hashToken(requestToken(request));
  return principalOf(await principalQuery(db, tokenHash).executeTakeFirst(), tokenHash, request);
}

/**
 * The principal of a route where signing in is optional: undefined without an Authorization header,
 * else authenticate()'s, so a bad, expired or other store's token is a 401, never a guest.
 */
export async function optionalPrincipal(db: Kysely<Database>, request: FastifyRequest): Promise<Principal | undefined> {
  return request.headers.authorization === undefined ? undefined : authenticate(db, request);
}

/**
 * authenticate() with its query compiled once: for hot paths (every basket, wishlist and logged-in
 * catalogue request resolves its caller), where building and compiling the query cost as much as
 * running it.
 */
export function authenticator(handle: DatabaseHandle): (request: FastifyRequest) => Promise<Principal> {
  const find = preparedQuery(handle, (db, tokenHash: string) => principalQuery(db, tokenHash));
  return async (request) => {
    const tokenHash = hashToken(requestToken(request));
    return principalOf((await find(tokenHash))[0], tokenHash, request);
  };
}

function requestToken(request: FastifyRequest): string {
  const token = bearerToken(request);
  if (token === undefined || !isTokenShaped(token)) throw unauthorized();
  return token;
}

/**
 * The statuses of a client account that is never usable again: removed from its company or erased.
 * Its tokens are deleted with it; a token issued as it went (read before, written after) is refused
 * here, and a write that waited for the change is refused under the account's lock
 * (modules/client-account-lock).
 */
export const ENDED_ACCOUNT_STATUSES = ['REMOVED', 'ERASED'] as const;

/** The token's principal, unless its account has ended (ENDED_ACCOUNT_STATUSES). */
function principalQuery(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('access_token')
    .innerJoin('client_account', 'client_account.id', 'access_token.client_account_id')
    .select([
      'access_token.user_id',
      'access_token.client_account_id',
      'access_token.store_code',
      'access_token.role',
      'access_token.expires_at',
      'client_account.code',
    ])
    .where('access_token.token_hash', '=', tokenHash)
    .where('client_account.status', 'not in', ENDED_ACCOUNT_STATUSES);
}

type PrincipalRow = Awaited<ReturnType<ReturnType<typeof principalQuery>['executeTakeFirst']>>;

function principalOf(row: PrincipalRow, tokenHash: string, request: FastifyRequest): Principal {
  if (!row || Number(row.expires_at) <= request.actionTime) throw unauthorized();
  if (request.store && request.store.code !== row.store_code) {
    throw new HttpError(401, 'auth.otherStoreToken', {}, { 'WWW-Authenticate': 'Bearer realm="storefront", error="invalid_token"' });
  }
  return {
    tokenHash,
    userId: Number(row.user_id),
    clientAccountId: Number(row.client_account_id),
    clientCode: row.code,
    storeCode: row.store_code,
    role: row.role,
  };
}
