import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Language } from '../../i18n/index.js';
import { ttlCache } from '../../infra/ttl-cache.js';

/** Binding names in every language: a dozen rows of reference data, read once per cache period. */
export interface BindingNames {
  name(code: string, language: Language): string;
}

export function bindingNamesCache(db: Kysely<Database>, ttlMs: number): () => Promise<BindingNames> {
  const cache = ttlCache(ttlMs, async () => {
    const rows = await db.selectFrom('binding_name').select(['binding_code', 'language', 'name']).execute();
    const names = new Map(rows.map((row) => [`${row.binding_code}:${row.language}`, row.name]));
    return {
      name: (code: string, language: Language) => names.get(`${code}:${language}`) ?? names.get(`${code}:et`) ?? code,
    };
  });
  return () => cache.get(null);
}
