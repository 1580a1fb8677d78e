import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as personSortNameMigration from '../../src/db/migrations/2026_12_02_0130_add_person_sort_name.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Migration 0030 gives every person a sort name, surname first, which the author index files them by.
// The persons there before it get the one the catalogue's rule (personSortName) derives from their name,
// written in SQL of both engines: the same for every kind of name the rule tells apart. Through GET
// /author: the letter T then finds Tammsaare, who was filed under A.

/** Names of every kind the rule tells apart, as the back office may have written them. */
const NAMES = [
  'A. H. Tammsaare',
  'Jaan Kross',
  'Homeros',
  'Tammsaare, Anton Hansen',
  '  Jaan   Kross  ',
  ' Homeros ',
  'Михаил Булгаков',
  'Õie Õunapuu',
  '100% Kirjanik',
  'A_B Autor',
  'Jean-Paul Sartre\u00a0Jr',
  'Mari K. Tamm-Kask',
  'Ludwig van Beethoven',
  `${'E'.repeat(150)} ${'S'.repeat(49)}`,
];

/** The person row before the migration. */
interface OldPerson {
  code: string;
  name: string;
  description: string | null;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe(`migration 2026_12_02_0130_add_person_sort_name on ${engine}`, () => {
  it("fills every person's sort name as the rule derives it, and the author index files them by surname", async () => {
    const db = t.database.db;
    await personSortNameMigration.down(db);
    // Persons as the build before wrote them: no sort name.
    const old = db as unknown as Kysely<{ person: OldPerson }>;
    const rows = NAMES.map((name, index) => ({
      code: `OLD-${index}`,
      name,
      description: null,
      image_url: null,
      created_at: 1,
      updated_at: 1,
    }));
    await old.insertInto('person').values(rows).execute();
    await personSortNameMigration.up(db);

    const stored = await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute();
    expect(stored).toHaveLength(NAMES.length);
    for (const person of stored) expect(person.sort_name, person.name).toBe(personSortName(person.name));

    const id = async (code: string) => (await db.selectFrom('person').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id;
    await createProduct(db, { code: 'TJO', persons: [{ id: await id('OLD-0'), role: 'AUTHOR' }] });
    await createProduct(db, { code: 'KROSS', persons: [{ id: await id('OLD-1'), role: 'AUTHOR' }] });
    const codes = async (query: string) => {
      const response = await t.app.inject({ method: 'GET', url: `/author?${query}` });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as Array<{ code: string; sortName: string }>).map((item) => `${item.code} ${item.sortName}`);
    };
    expect(await codes('letter=T')).toEqual(['OLD-0 Tammsaare, A. H.']);
    expect(await codes('q=Kross')).toEqual(['OLD-1 Kross, Jaan']);
    expect(await codes('letter=A')).toEqual([]);
  });
});
