import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import type { PersonRole } from '../catalogue.tables.js';
import type { Caller } from '../caller.js';
import { audienceKey } from '../visibility.js';
import { personRoles } from './person.repository.js';

const CACHE_ENTRIES = 20_000;

export type PersonRoles = (scope: { storeCode: string; caller: Caller }, personId: number) => Promise<PersonRole[]>;

/** A person's roles on the products the caller can see in the store, kept per audience for the cache period. */
export function createPersonRoles(db: Kysely<Database>, ttlMs: number): PersonRoles {
  const roles = boundedCache<string, PersonRole[]>(ttlMs, CACHE_ENTRIES);
  return ({ storeCode, caller }, personId) =>
    roles.get(`${storeCode}|${audienceKey(caller)}|${personId}`, () => personRoles(db, personId, storeCode, caller));
}
