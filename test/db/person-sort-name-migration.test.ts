import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as personSortNameMigration from '../../src/db/migrations/2026_12_02_0130_add_person_sort_name.js';
import * as notesAfterSurnameMigration from '../../src/db/migrations/2026_12_02_0300_file_person_notes_after_surname.js';
import * as notesRunAfterSurnameMigration from '../../src/db/migrations/2026_12_02_0600_file_person_notes_run_after_surname.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Migration 0130 gives every person a sort name, surname first, which the author index files them by.
// The persons there before it get the one the catalogue's rule (personSortName) derives from their name,
// written in SQL of both engines: the same for every kind of name the rule told apart then. Through GET
// /author: the letter T then finds Tammsaare, who was filed under A.
//
// Migration 0300 files again the persons whose name ends in a note in parentheses, which 0130's rule
// took for the surname ("(1864-1913), Juhan Liiv"), and 0600 those whose name ends in more than one,
// the one before the last of which 0300's rule took for the surname ("(1920-2007), Jaan Kross
// (tõlkija)"): after them, every derived sort name is the one the catalogue's rule derives now, for
// those kinds of name too, and the letters L and K find Juhan Liiv and Jaan Kross.

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
  '  Jaan  Kross  (1920-2007)   (tõlkija)  ',
  'Homeros (8. saj eKr) (tõlkija) ()',
  'Kross, Jaan (1920-2007) (tõlkija)',
  'Jaan (Johannes) Kross (1920) (tõlkija)',
  'Jaan Kross(1920) (tõlkija)',
  'Jaan Kross (1920)(tõlkija)',
  'Jaan Kross (1920) tõlkija (2)',
  'Jaan Kross (s. 1920 (Tallinn)) (tõlkija)',
  '(anonüümne) (tõlkija)',
  '(a) (b) (c)',
  'Михаил Булгаков (1891-1940) (перевод)',
  'Õie Õunapuu (100%_koost.) (toim.)',
  `${'E'.repeat(150)} ${'S'.repeat(20)} (${'N'.repeat(10)}) (${'R'.repeat(10)})`,
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
  it('files the persons whose sort name took a note for the surname again, as the rule does after 0600 too, and keeps a given one', async () => {
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
    const filedByLastNote = await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute();
    expect(filedByLastNote).toHaveLength(before.length);
    expect(filedByLastNote.find((person) => person.code === 'NOTE-14')?.sort_name).toBe('Liiv, Juhan (1864-1913)');
    // Down gives the old rule's back to the rows up changed, and up files them again.
    await notesAfterSurnameMigration.down(db);
    expect(await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute()).toEqual(before);
    await notesAfterSurnameMigration.up(db);
    expect(await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute()).toEqual(filedByLastNote);

    // 0600 changes only the sort names 0300's rule derived for a name ending in more than one note, so a
    // name 0300 filed otherwise than its rule would still differ from the rule's now here.
    await notesRunAfterSurnameMigration.up(db);
    const stored = await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute();
    for (const person of stored) {
      expect(person.sort_name, person.name).toBe(
        person.code === 'NOTE-15' ? 'Kross, Jaan (tõlkija, 1920-2007)' : personSortName(person.name),
      );
    }

    const id = async (code: string) => (await db.selectFrom('person').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id;
    await createProduct(db, { code: 'LIIV', persons: [{ id: await id('NOTE-14'), role: 'AUTHOR' }] });
    const response = await t.app.inject({ method: 'GET', url: '/author?letter=L' });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ code: string; sortName: string }>).map((item) => `${item.code} ${item.sortName}`)).toEqual([
      'NOTE-14 Liiv, Juhan (1864-1913)',
    ]);
  });
});

describe(`migration 2026_12_02_0600_file_person_notes_run_after_surname on ${engine}`, () => {
  it('files the persons whose sort name took a note before the last for the surname again, as the rule does now, and keeps a given one', async () => {
    const db = t.database.db;
    await personSortNameMigration.down(db);
    const runNames = [...NAMES, ...NOTED_NAMES];
    // More names with notes than a page holds, so the migration reads a second page from the first's last id.
    const many = Array.from(
      { length: notesRunAfterSurnameMigration.PAGE_ROWS + 5 },
      (_, index) => `Jaan Kross${index} (1920-2007) (tõlkija)`,
    );
    const old = db as unknown as Kysely<{ person: OldPerson }>;
    for (const [prefix, names] of [
      ['RUN', runNames],
      ['MANY', many],
    ] as const) {
      // In parts: PostgreSQL takes at most 65,535 bound values in one statement.
      for (let start = 0; start < names.length; start += 500) {
        const part = oldPersons(prefix, names).slice(start, start + 500);
        await old.insertInto('person').values(part).execute();
      }
    }
    await personSortNameMigration.up(db);
    await notesAfterSurnameMigration.up(db);
    // The state 0300 left: the note before the last taken for the surname.
    const code = (name: string) => `RUN-${runNames.indexOf(name)}`;
    const kross = code('Jaan Kross (1920-2007) (tõlkija)');
    const sortNameOf = async (personCode: string) =>
      (await db.selectFrom('person').select('sort_name').where('code', '=', personCode).executeTakeFirstOrThrow()).sort_name;
    expect(await sortNameOf(kross)).toBe('(1920-2007), Jaan Kross (tõlkija)');
    // A sort name the persons import gave is the back office's, whatever either rule says.
    const given = code('  Jaan  Kross  (1920-2007)   (tõlkija)  ');
    await db.updateTable('person').set({ sort_name: 'Kross, Jaan (tõlkija; 1920-2007)' }).where('code', '=', given).execute();
    const before = await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute();

    await notesRunAfterSurnameMigration.up(db);
    const stored = await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute();
    expect(stored).toHaveLength(before.length);
    for (const person of stored) {
      expect(person.sort_name, person.name).toBe(person.code === given ? 'Kross, Jaan (tõlkija; 1920-2007)' : personSortName(person.name));
    }
    expect(await sortNameOf(kross)).toBe('Kross, Jaan (1920-2007) (tõlkija)');
    expect(await sortNameOf(`MANY-${notesRunAfterSurnameMigration.PAGE_ROWS + 4}`)).toBe(
      `Kross${notesRunAfterSurnameMigration.PAGE_ROWS + 4}, Jaan (1920-2007) (tõlkija)`,
    );

    const id = (await db.selectFrom('person').select('id').where('code', '=', kross).executeTakeFirstOrThrow()).id;
    await createProduct(db, { code: 'KROSS-RUN', persons: [{ id, role: 'AUTHOR' }] });
    const response = await t.app.inject({ method: 'GET', url: '/author?letter=K' });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ code: string; sortName: string }>).map((item) => `${item.code} ${item.sortName}`)).toEqual([
      'OLD-1 Kross, Jaan',
      `${kross} Kross, Jaan (1920-2007) (tõlkija)`,
    ]);

    // Down gives the old rule's back to the rows up changed, and up files them again.
    await notesRunAfterSurnameMigration.down(db);
    expect(await db.selectFrom('person').select(['code', 'sort_name']).orderBy('code').execute()).toEqual(before);
    await notesRunAfterSurnameMigration.up(db);
    expect(await db.selectFrom('person').select(['code', 'name', 'sort_name']).orderBy('code').execute()).toEqual(stored);
  });
});
