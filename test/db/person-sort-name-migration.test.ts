import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as personSortNameMigration from '../../src/db/migrations/2026_12_02_0130_add_person_sort_name.js';
import * as notesAfterSurnameMigration from '../../src/db/migrations/2026_12_02_0300_file_person_notes_after_surname.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Migration 0130 gives every person a sort name, surname first, which the author index files them by.
// The persons there before it get the one the catalogue's rule (personSortName) derives from their name,
// written in SQL of both engines: the same for every kind of name the rule told apart then. Through GET
// /author: the letter T then finds Tammsaare, who was filed under A.
//
// Migration 0300 files again the persons whose name ends in a note in parentheses, which 0130's rule
// took for the surname ("(1864-1913), Juhan Liiv"): after both, every derived sort name is the one the
// catalogue's rule derives now, for those kinds of name too, and the letter L finds Juhan Liiv.

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

/** Names with a note in parentheses after them, and names like them that the rule does not take for one. */
const NOTED_NAMES = [
  'Juhan Liiv (1864-1913)',
  '  Jaan  Kross  (tõlkija) ',
  'Homeros (8. saj eKr)',
  'Kross, Jaan (1920-2007)',
  'Jaan Kross (1920, Tallinn)',
  'Jaan (Johannes) Kross (tõlkija)',
  'Jaan Kross (1920-2007) (tõlkija)',
  'Jaan Kross(1920)',
  '(anonüümne)',
  'Jaan Kross (tõlkija',
  'Jaan Kross tõlkija)',
  'Jaan Kross (s. 1920 (Tallinn))',
  'Mari Tamm ()',
  'Õie Õunapuu (100%_koost.)',
  `${'E'.repeat(150)} ${'S'.repeat(30)} (${'N'.repeat(16)})`,
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

const oldPersons = (prefix: string, names: string[]) =>
  names.map((name, index) => ({ code: `${prefix}-${index}`, name, description: null, image_url: null, created_at: 1, updated_at: 1 }));

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
    await old.insertInto('person').values(oldPersons('OLD', NAMES)).execute();
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

describe(`migration 2026_12_02_0300_file_person_notes_after_surname on ${engine}`, () => {
  it('files the persons whose sort name took a note for the surname again, as the rule does now, and keeps a given one', async () => {
    const db = t.database.db;
    await personSortNameMigration.down(db);
    const old = db as unknown as Kysely<{ person: OldPerson }>;
    await old
      .insertInto('person')
      .values(oldPersons('NOTE', [...NAMES, ...NOTED_NAMES]))
      .execute();
    await personSortNameMigration.up(db);
    expect((await db.selectFrom('person').select('sort_name').where('code', '=', 'NOTE-14').executeTakeFirstOrThrow()).sort_name).toBe(
      '(1864-1913), Juhan Liiv',
    );
    // A sort name the persons import gave is the back office's, whatever either rule says.
    await db.updateTable('person').set({ sort_name: 'Kross, Jaan (tõlkija, 1920-2007)' }).where('code', '=', 'NOTE-15').execute();
    const before = await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute();

    await notesAfterSurnameMigration.up(db);
    const stored = await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute();
    expect(stored).toHaveLength(before.length);
    for (const person of stored) {
      expect(person.sort_name, person.name).toBe(
        person.code === 'NOTE-15' ? 'Kross, Jaan (tõlkija, 1920-2007)' : personSortName(person.name),
      );
    }
    expect(stored.find((person) => person.code === 'NOTE-14')?.sort_name).toBe('Liiv, Juhan (1864-1913)');

    const id = async (code: string) => (await db.selectFrom('person').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id;
    await createProduct(db, { code: 'LIIV', persons: [{ id: await id('NOTE-14'), role: 'AUTHOR' }] });
    const response = await t.app.inject({ method: 'GET', url: '/author?letter=L' });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ code: string; sortName: string }>).map((item) => `${item.code} ${item.sortName}`)).toEqual([
      'NOTE-14 Liiv, Juhan (1864-1913)',
    ]);

    // Down gives the old rule's back to the rows up changed, and up files them again.
    await notesAfterSurnameMigration.down(db);
    expect(await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute()).toEqual(before);
    await notesAfterSurnameMigration.up(db);
    expect(await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute()).toEqual(stored);
  });
});
