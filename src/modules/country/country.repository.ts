import type { Db } from '../../db/database.js';

export interface CountryItem {
  code: string;
  name: string;
}

/**
 * Every country with its name in `language`, pinned ones first, then by name in that language's
 * alphabet. The list is small reference data (tens of rows), read once per cache period and paged
 * in memory; it is sorted here because the database compares code points, which put Estonian's
 * Š (after S) and Ü (after Õ Ä Ö) and every capital letter with a mark after Z.
 */
export async function allCountries(db: Db, language: string): Promise<CountryItem[]> {
  const rows = await db
    .selectFrom('country')
    .innerJoin('country_name', (join) =>
      join.onRef('country_name.country_code', '=', 'country.code').on('country_name.language', '=', language),
    )
    .select(['country.code', 'country_name.name', 'country.position'])
    .execute();
  const byName = new Intl.Collator(language).compare;
  rows.sort((a, b) => a.position - b.position || byName(a.name, b.name) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  return rows.map(({ code, name }) => ({ code, name }));
}

/** Of these country codes (upper case, as stored), the ones on the country list: what an address may name. */
export async function knownCountries(db: Db, codes: readonly string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await db
    .selectFrom('country')
    .select('code')
    .where('code', 'in', [...new Set(codes)])
    .execute();
  return new Set(rows.map((row) => row.code));
}
