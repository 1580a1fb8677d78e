import type { DatabaseHandle } from './database.js';
import { COUNTRIES } from './migrations/data/countries-2026-11.js';

export interface SeedReport {
  countries: number;
}

/**
 * Demo data for a fresh installation. Idempotent: it fills in what is missing and never
 * overwrites what an operator changed. The reference data (stores, countries) comes with the
 * migrations; this restores any country rows that were removed. Later features add their demo
 * catalogue, shops and accounts here.
 */
export async function seedDemo({ db }: DatabaseHandle): Promise<SeedReport> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('country')
      .values(COUNTRIES.map(({ code, position }) => ({ code, position })))
      .onConflict((conflict) => conflict.column('code').doNothing())
      .execute();
    await trx
      .insertInto('country_name')
      .values(COUNTRIES.flatMap(({ code, names }) =>
        Object.entries(names).map(([language, name]) => ({ country_code: code, language, name }))))
      .onConflict((conflict) => conflict.columns(['country_code', 'language']).doNothing())
      .execute();
  });
  const row = await db.selectFrom('country').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { countries: Number(row.n) };
}
