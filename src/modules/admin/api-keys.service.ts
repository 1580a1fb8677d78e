import type { Db } from '../../db/database.js';
import { hashToken, isTokenShaped, lastUseIsStale, newToken } from '../../infra/tokens.js';
import {
  allApiKeys,
  findApiKeyByHash,
  findApiKeyByName,
  insertApiKey,
  markApiKeyUsed,
  revokeApiKey,
  type ApiKeyRow,
} from './api-keys.repository.js';

// Operator API keys for the admin endpoints: opaque random tokens like access tokens; only the
// SHA-256 is stored, so a key is shown once, when it is made, and found again by its hash.

export const API_KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$/;

/** What the command names is not there, or is taken: the command line itself was right. */
export class ApiKeyError extends Error {}
/** A name that is never valid: a command line the CLI cannot run. */
export class ApiKeyInputError extends ApiKeyError {}

export async function createApiKey(db: Db, name: string, now: number): Promise<string> {
  if (!API_KEY_NAME.test(name))
    throw new ApiKeyInputError('a key name is 1 to 100 letters, digits, spaces or . _ @ - and starts with a letter or digit');
  if (await findApiKeyByName(db, name))
    throw new ApiKeyError(`an API key named "${name}" exists already (names stay taken after revoking)`);
  const { token, hash } = newToken();
  await insertApiKey(db, name, hash, now);
  return token;
}

export async function listApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return allApiKeys(db);
}

export async function revokeApiKeyByName(db: Db, name: string, now: number): Promise<'revoked' | 'already revoked'> {
  const key = await findApiKeyByName(db, name);
  if (!key) throw new ApiKeyError(`no API key named "${name}"`);
  return (await revokeApiKey(db, key.id, now)) ? 'revoked' : 'already revoked';
}

export interface Operator {
  id: number;
  name: string;
}

/**
 * The operator whose API key this is, marked as used at `now` (to the minute, lastUseIsStale);
 * undefined when the key is malformed, unknown or revoked.
 */
export async function operatorOfKey(db: Db, key: string, now: number): Promise<Operator | undefined> {
  if (!isTokenShaped(key)) return undefined;
  const row = await findApiKeyByHash(db, hashToken(key));
  if (!row || row.revoked_at !== null) return undefined;
  if (lastUseIsStale(row.last_used_at, now)) await markApiKeyUsed(db, row.id, now);
  return { id: row.id, name: row.name };
}
