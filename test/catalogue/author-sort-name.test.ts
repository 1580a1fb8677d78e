import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { authorPage, countAuthors } from '../../src/modules/catalogue/browse/person.repository.js';
import { GUEST } from '../../src/modules/catalogue/caller.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { createBackOfficeApp, ndjson } from '../helpers/back-office.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { engine, type TestApp } from '../helpers/test-app.js';

// A bookshop's author index is by surname. Persons are imported with their name given names first
// ("A. H. Tammsaare") and get a sort name, "Tammsaare, A. H." (the import's sortName, or the rule's),
// which GET /author files them by: the letter is the surname's, q the start of either name, the order
// the sort name's.

type Db = Kysely<Database>;

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

function postImport(kind: string, lines: unknown[]) {
  return t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: ndjson(lines),
  });
}

async function importLines(kind: string, lines: unknown[]) {
  const response = await postImport(kind, lines);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().errors).toEqual([]);
  return response.json() as { outcomes: Record<string, number> };
}

const book = (code: string, author: string) => ({
  code,
  type: 'BOOK',
  name: `Raamat ${code}`,
  stores: ['WEB'],
  shopPrice: 9.9,
  vatRate: 9,
  availability: 'AVAILABLE',
  persons: [{ code: author, role: 'AUTHOR' }],
});

interface AuthorItem {
  code: string;
  name: string;
  sortName: string;
}

async function authors(query = ''): Promise<{ items: AuthorItem[]; total: string }> {
  const response = await t.app.inject({ method: 'GET', url: `/author${query === '' ? '' : `?${query}`}` });
  expect(response.statusCode, response.body).toBe(200);
  return { items: response.json(), total: String(response.headers['x-pagination-total-count']) };
}
const codes = async (query: string) => (await authors(query)).items.map((item) => item.code);

describe('personSortName', () => {
  it('puts the last word first, keeps a name with a comma and a name of one word as they are', () => {
    expect(personSortName('A. H. Tammsaare')).toBe('Tammsaare, A. H.');
    expect(personSortName('Jaan Kross')).toBe('Kross, Jaan');
    expect(personSortName('Tammsaare, A. H.')).toBe('Tammsaare, A. H.');
    expect(personSortName('Homeros')).toBe('Homeros');
    expect(personSortName('  Jaan   Kross  ')).toBe('Kross, Jaan');
    expect(personSortName('Михаил Булгаков')).toBe('Булгаков, Михаил');
    expect(personSortName('Ludwig van Beethoven')).toBe('Beethoven, Ludwig van');
    // A no-break space holds two words together.
    expect(personSortName('Jean-Paul Sartre\u00a0Jr')).toBe('Sartre\u00a0Jr, Jean-Paul');
  });

  it('files the name before a note in parentheses at its end, and keeps the note after it', () => {
    expect(personSortName('Juhan Liiv (1864-1913)')).toBe('Liiv, Juhan (1864-1913)');
    expect(personSortName(' Jaan  Kross  (tõlkija) ')).toBe('Kross, Jaan (tõlkija)');
    expect(personSortName('Homeros (8. saj eKr)')).toBe('Homeros (8. saj eKr)');
    expect(personSortName('Kross, Jaan (1920-2007)')).toBe('Kross, Jaan (1920-2007)');
    // A comma in the note does not make the name one written surname first.
    expect(personSortName('Jaan Kross (1920, Tallinn)')).toBe('Kross, Jaan (1920, Tallinn)');
    // Only the notes that end the name are set apart, all of them, as written between each other.
    expect(personSortName('Jaan (Johannes) Kross (tõlkija)')).toBe('Kross, Jaan (Johannes) (tõlkija)');
    expect(personSortName('Jaan Kross (1920-2007) (tõlkija)')).toBe('Kross, Jaan (1920-2007) (tõlkija)');
    expect(personSortName(' Jaan  Kross  (1920-2007)  (tõlkija) ')).toBe('Kross, Jaan (1920-2007)  (tõlkija)');
    expect(personSortName('Homeros (8. saj eKr) (tõlkija) ()')).toBe('Homeros (8. saj eKr) (tõlkija) ()');
    expect(personSortName('Jaan Kross (s. 1920 (Tallinn)) (tõlkija)')).toBe('(Tallinn)), Jaan Kross (s. 1920 (tõlkija)');
    expect(personSortName('Jaan Kross (1920)(tõlkija)')).toBe('(1920)(tõlkija), Jaan Kross');
    // Not a note after the name: none after a space, a note alone.
    expect(personSortName('Jaan Kross(1920)')).toBe('Kross(1920), Jaan');
    expect(personSortName('(anonüümne)')).toBe('(anonüümne)');
    expect(personSortName('(anonüümne) (tõlkija)')).toBe('(anonüümne) (tõlkija)');
  });
});

const firstBooks = ['TAMMSAARE', 'KROSS', 'KIVIRAHK', 'BEETHOVEN', 'HOMEROS', 'UNDER'].map((code) => book(`B-${code}`, code));

describe(`GET /author by surname, persons imported over HTTP, on ${engine}`, () => {
  beforeAll(async () => {
    await importLines('persons', [
      { code: 'TAMMSAARE', name: 'A. H. Tammsaare' },
      { code: 'KROSS', name: 'Jaan Kross' },
      { code: 'KIVIRAHK', name: 'Andrus Kivirähk' },
      { code: 'BEETHOVEN', name: 'Ludwig van Beethoven', sortName: 'Beethoven, Ludwig van' },
      { code: 'HOMEROS', name: 'Homeros' },
      { code: 'UNDER', name: 'Under, Marie' },
    ]);
    await importLines('products', firstBooks);
  });

  it('stores the sort name given, else the one the rule derives, and answers it with each author', async () => {
    const byCode = new Map((await authors()).items.map((item) => [item.code, item]));
    expect(byCode.get('TAMMSAARE')).toMatchObject({ name: 'A. H. Tammsaare', sortName: 'Tammsaare, A. H.' });
    expect(byCode.get('BEETHOVEN')).toMatchObject({ name: 'Ludwig van Beethoven', sortName: 'Beethoven, Ludwig van' });
    expect(byCode.get('HOMEROS')).toMatchObject({ sortName: 'Homeros' });
    expect(byCode.get('UNDER')).toMatchObject({ sortName: 'Under, Marie' });
  });

  it('lists the authors in sort-name order', async () => {
    expect(await codes('')).toEqual(['BEETHOVEN', 'HOMEROS', 'KIVIRAHK', 'KROSS', 'TAMMSAARE', 'UNDER']);
    expect(await codes('per-page=2&page=2')).toEqual(['KIVIRAHK', 'KROSS']);
  });

  it("filters by the surname's first letter", async () => {
    expect(await codes('letter=T')).toEqual(['TAMMSAARE']);
    expect(await codes('letter=k')).toEqual(['KIVIRAHK', 'KROSS']);
    expect(await codes('letter=B')).toEqual(['BEETHOVEN']);
    // Not by the given names' letter any more.
    expect(await codes('letter=J')).toEqual([]);
    expect((await authors('letter=k')).total).toBe('2');
  });

  it('finds an author by the start of the name or of the sort name', async () => {
    expect(await codes('q=Jaan')).toEqual(['KROSS']);
    expect(await codes('q=kross')).toEqual(['KROSS']);
    expect(await codes('q=Kross,%20J')).toEqual(['KROSS']);
    expect(await codes('q=Ludwig')).toEqual(['BEETHOVEN']);
    expect(await codes('q=beeth')).toEqual(['BEETHOVEN']);
    expect(await codes('q=K')).toEqual(['KIVIRAHK', 'KROSS']);
    expect(await codes('q=a')).toEqual(['KIVIRAHK', 'TAMMSAARE']);
    expect(await codes('q=van')).toEqual([]);
    expect(await codes('letter=K&q=Jaan')).toEqual(['KROSS']);
    expect((await authors('q=a')).total).toBe('2');
  });

  it('derives the sort name again when an import renames the person, and keeps it when nothing changed', async () => {
    expect((await importLines('persons', [{ code: 'KROSS', name: 'Jaan Kross' }])).outcomes).toEqual({ unchanged: 1 });
    expect((await importLines('persons', [{ code: 'KROSS', name: 'Jaan Krossi' }])).outcomes).toEqual({ updated: 1 });
    expect((await authors('letter=K')).items.find((item) => item.code === 'KROSS')).toMatchObject({ sortName: 'Krossi, Jaan' });
    // A sort name is the line's: a line without one derives it again.
    await importLines('persons', [{ code: 'KROSS', name: 'Jaan Kross', sortName: 'KROSS, Jaan (1920-2007)' }]);
    expect((await authors('q=Kross')).items).toMatchObject([{ code: 'KROSS', sortName: 'KROSS, Jaan (1920-2007)' }]);
    await importLines('persons', [{ code: 'KROSS', name: 'Jaan Kross' }]);
    expect((await authors('q=Kross')).items).toMatchObject([{ code: 'KROSS', sortName: 'Kross, Jaan' }]);
  });

  it('refuses a sort name that is blank, too long or holds a control character, naming the field', async () => {
    const response = await postImport('persons', [
      { code: 'X1', name: 'Mari Tamm', sortName: '   ' },
      { code: 'X2', name: 'Mari Tamm', sortName: 'x'.repeat(202) },
      { code: 'X3', name: 'Mari Tamm', sortName: 'Tamm,\tMari' },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errorCount).toBe(3);
    for (const error of response.json().errors) expect(error.message).toContain('sortName');
  });

  it('refuses a sort name the author index would file under no letter, and imports the other lines', async () => {
    const response = await postImport('persons', [
      { code: 'NOLETTER-1', name: 'Jaan Kross (1920-2007)', sortName: '(1920-2007), Jaan Kross' },
      { code: 'LETTER-1', name: 'Jaan Kross (1920-2007)', sortName: 'Kross, Jaan (1920-2007)' },
      { code: 'NOLETTER-2', name: 'Jaan Kross', sortName: ' Kross, Jaan' },
      { code: 'NOLETTER-3', name: '50 Cent', sortName: '50 Cent' },
      { code: 'NOLETTER-4', name: 'Jaan Kross', sortName: '\u0301Kross, Jaan' },
      { code: 'LETTER-2', name: 'Õie Õunapuu', sortName: 'õunapuu, Õie' },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    const notWith = (what: string) =>
      `/sortName: must begin with a letter, which the author index files the person under, not with ${what}`;
    expect(response.json()).toEqual({
      lines: 6,
      outcomes: { created: 2 },
      errors: [
        { line: 1, message: notWith('"("') },
        { line: 3, message: notWith('white space') },
        { line: 4, message: notWith('"5"') },
        { line: 5, message: notWith('U+0301') },
      ],
      errorCount: 4,
    });
  });
});

describe(`the author index's reads on ${engine}`, () => {
  const filter = { storeCode: 'WEB', caller: GUEST };

  async function plansOf(read: (db: Db) => Promise<unknown>, on: Db = t.database.db): Promise<string[]> {
    const recorder = recordingStatements(on);
    await read(recorder.db);
    return Promise.all(recorder.statements.map((statement) => planOfStatement(on, statement)));
  }

  it('reads a letter and a q prefix from the folded sort-name and name indexes', async () => {
    const [letter] = await plansOf((db) => countAuthors(db, { ...filter, letter: 't' }));
    expect(letter).toMatch(/person_sort_name_(upper|lower)_idx/);
    const [q] = await plansOf((db) => countAuthors(db, { ...filter, q: 'kro' }));
    for (const index of ['person_name_upper_idx', 'person_name_lower_idx', 'person_sort_name_upper_idx', 'person_sort_name_lower_idx']) {
      expect(q).toContain(index);
    }
    const [page] = await plansOf((db) => authorPage(db, { ...filter, q: 'kro' }, 0, 20));
    expect(page).toContain('person_sort_name_upper_idx');
    expect(page).not.toMatch(/Seq Scan on person|SCAN person\b/);
  });

  it('walks a page in sort-name order in person_sort_name_idx, without a sort', async () => {
    // PostgreSQL semi-joins the test's few rows and sorts them; asked not to sort, as a large table's
    // statistics would have it, it walks the same index (on one connection: the setting is the session's).
    await t.database.db.connection().execute(async (connection) => {
      if (engine === 'postgres') await sql`set enable_sort = off`.execute(connection);
      try {
        const [walked] = await plansOf((db) => authorPage(db, { ...filter, prefixRange: false }, 0, 20), connection);
        expect(walked).toContain('person_sort_name_idx');
        expect(walked).not.toMatch(/TEMP B-TREE|Sort/);
      } finally {
        if (engine === 'postgres') await sql`reset enable_sort`.execute(connection);
      }
    });
  });
});

// A name may end in a note in parentheses: years ("Juhan Liiv (1864-1913)") or a role ("Jaan Kross
// (tõlkija)"). The sort name took the note for the surname, "(1864-1913), Juhan Liiv", so no letter
// found him (the index filed him under "("). Run after the lists above, whose totals these would change.
describe(`GET /author, persons whose name ends in a note, on ${engine}`, () => {
  beforeAll(async () => {
    await importLines('persons', [
      { code: 'LIIV', name: 'Juhan Liiv (1864-1913)' },
      { code: 'KROSS-T', name: 'Jaan Kross (tõlkija)' },
      { code: 'HOMEROS-N', name: 'Homeros (8. saj eKr)' },
      { code: 'KROSS-YT', name: 'Jaan Kross (1920-2007) (tõlkija)' },
    ]);
    // The products feed is the whole catalogue: the earlier books stay in it.
    const notedBooks = ['LIIV', 'KROSS-T', 'HOMEROS-N', 'KROSS-YT'].map((code) => book(`B-${code}`, code));
    await importLines('products', [...firstBooks, ...notedBooks]);
  });
  const filed = async (query: string) => (await authors(query)).items.map((item) => `${item.code}: ${item.sortName} / ${item.name}`);

  it('files them by the surname before the note, which stays after it, in surname order among the others', async () => {
    expect(await filed('letter=L')).toEqual(['LIIV: Liiv, Juhan (1864-1913) / Juhan Liiv (1864-1913)']);
    // Every note that ends the name, not only the last one: "(1920-2007)" is no surname either.
    expect(await filed('letter=K')).toEqual([
      'KIVIRAHK: Kivirähk, Andrus / Andrus Kivirähk',
      'KROSS: Kross, Jaan / Jaan Kross',
      'KROSS-YT: Kross, Jaan (1920-2007) (tõlkija) / Jaan Kross (1920-2007) (tõlkija)',
      'KROSS-T: Kross, Jaan (tõlkija) / Jaan Kross (tõlkija)',
    ]);
    expect(await filed('letter=H')).toEqual(['HOMEROS: Homeros / Homeros', 'HOMEROS-N: Homeros (8. saj eKr) / Homeros (8. saj eKr)']);
  });

  it('finds them by the start of the surname', async () => {
    expect(await codes('q=liiv')).toEqual(['LIIV']);
    expect(await codes('q=Kross,%20Jaan')).toEqual(['KROSS', 'KROSS-YT', 'KROSS-T']);
  });
});
