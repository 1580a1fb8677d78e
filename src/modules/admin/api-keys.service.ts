import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { bearerToken } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { hashToken, isTokenShaped, newToken } from '../../infra/tokens.js';
import { allApiKeys, findApiKeyByHash, findApiKeyByName, insertApiKey, markApiKeyUsed, revokeApiKey, type ApiKeyRow } from './api-keys.repository.js';

// Operator API keys for the admin endpoints: opaque random tokens like access tokens; only the
// SHA-256 is stored, so a key is shown once, when it is made, and found again by its hash.

export const API_KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$/;

export class ApiKeyError extends Error {}

export async function createApiKey(db: Kysely<Database>, name: string): Promise<string> {
  if (!API_KEY_NAME.test(name)) throw new ApiKeyError('a key name is 1 to 100 letters, digits, spaces or . _ @ - and starts with a letter or digit');
  if (await findApiKeyByName(db, name)) throw new ApiKeyError(`an API key named "${name}" exists already (names stay taken after revoking)`);
  const { token, hash } = newToken();
  await insertApiKey(db, name, hash, Date.now());
  return token;
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyRow[]> {
  return allApiKeys(db);
}

export async function revokeApiKeyByName(db: Kysely<Database>, name: string): Promise<'revoked' | 'already revoked'> {
  const key = await findApiKeyByName(db, name);
  if (!key) throw new ApiKeyError(`no API key named "${name}"`);
  return (await revokeApiKey(db, key.id, Date.now())) ? 'revoked' : 'already revoked';
}

const unauthorized = (error?: string) =>
  new HttpError(401, 'admin.unauthorized', {}, { 'WWW-Authenticate': `Bearer realm="storefront-admin"${error ? `, error="${error}"` : ''}` });

/** The operator behind the request's bearer key; 401 when it is missing, unknown or revoked. */
export async function authenticateOperator(db: Kysely<Database>, request: FastifyRequest): Promise<{ id: number; name: string }> {
  let key: string | undefined;
  try {
    key = request.headers.authorization?.trim() ? bearerToken(request) : undefined;
  } catch {
    throw unauthorized('invalid_request');
  }
  if (key === undefined) throw unauthorized();
  if (!isTokenShaped(key)) throw unauthorized('invalid_token');
  const row = await findApiKeyByHash(db, hashToken(key));
  if (!row || row.revoked_at !== null) throw unauthorized('invalid_token');
  await markApiKeyUsed(db, row.id, Date.now());
  return { id: row.id, name: row.name };
}
