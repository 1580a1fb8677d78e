import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productStream } from '../../src/modules/events/index.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

// An e-book's (or audiobook's) physicalBook names its printed edition: a product of type BOOK. A line
// naming another e-book, a product of another kind, or itself is refused with a message on its line,
// as an unknown reference is; a line of another type may not name one at all. A target later in the
// file is checked once the file was read: the line's product is written, its link is not made. The
// check reads the type the target has once the file is applied: a line of the file that retypes a
// catalogue product counts, whether it comes before or after the e-book's line.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const product = (code: string, type: string, physicalBook?: string) => ({
  code,
  type,
  name: `Toode ${code}`,
  stores: ['WEB'],
  shopPrice: 9.9,
  vatRate: 9,
  availability: 'AVAILABLE',
  ...(physicalBook === undefined ? {} : { physicalBook }),
});

const importProducts = (lines: unknown[]) =>
  t.app.inject({
    method: 'POST',
    url: '/admin/import/products?force=true',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => JSON.stringify(line)).join('\n'),
  });

const rows = async () =>
  Object.fromEntries(
    (await t.database.db.selectFrom('product').select(['id', 'code', 'type', 'physical_book_id']).execute()).map((row) => [
      row.code,
      { id: Number(row.id), type: row.type, physicalBookId: row.physical_book_id === null ? null : Number(row.physical_book_id) },
    ]),
  );

describe('the physicalBook of a products import', () => {
  it('links an e-book or audiobook to a BOOK only, and refuses every other target in the report', async () => {
    const response = await importProducts([
      product('B-1', 'BOOK'),
      product('E-1', 'EBOOK', 'B-1'),
      product('E-2', 'EBOOK', 'E-1'),
      product('E-3', 'EBOOK', 'M-1'),
      product('M-1', 'MUSIC'),
      product('B-2', 'BOOK', 'B-1'),
      product('A-1', 'AUDIOBOOK', 'B-1'),
      product('E-4', 'EBOOK', 'E-4'),
      product('E-5', 'EBOOK', 'E-6'),
      product('E-6', 'EBOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      { line: 3, message: '/physicalBook: product "E-1" is of type EBOOK, not a physical book (BOOK)' },
      { line: 6, message: '/physicalBook: only an e-book or an audiobook has a physical edition, not a product of type BOOK' },
      { line: 8, message: '/physicalBook: a product cannot be its own physical edition' },
      { line: 4, message: '/physicalBook: product "M-1" is of type MUSIC, not a physical book (BOOK), so the product is not linked to it' },
      { line: 9, message: '/physicalBook: product "E-6" is of type EBOOK, not a physical book (BOOK), so the product is not linked to it' },
    ]);
    const stored = await rows();
    // The refused lines left nothing; the later targets' lines wrote their products without the link.
    expect(Object.keys(stored).sort()).toEqual(['A-1', 'B-1', 'E-1', 'E-3', 'E-5', 'E-6', 'M-1']);
    expect(stored['E-1']!.physicalBookId).toBe(stored['B-1']!.id);
    expect(stored['A-1']!.physicalBookId).toBe(stored['B-1']!.id);
    expect(stored['E-3']!.physicalBookId).toBeNull();
    expect(stored['E-5']!.physicalBookId).toBeNull();
  });

  it('refuses a link to a product of the catalogue that is not a BOOK, and keeps the link it had', async () => {
    expect((await importProducts([product('E-1', 'EBOOK', 'E-3')])).json().errors).toEqual([
      { line: 1, message: '/physicalBook: product "E-3" is of type EBOOK, not a physical book (BOOK)' },
    ]);
    const stored = await rows();
    expect(stored['E-1']!.physicalBookId).toBe(stored['B-1']!.id);
  });

  it('checks a target that a later line of the file retypes with the type that line gives it', async () => {
    // The catalogue's R-BOOK is a BOOK and R-EBOOK an e-book; E-R1 is already linked to R-BOOK.
    await importProducts([product('R-BOOK', 'BOOK'), product('R-EBOOK', 'EBOOK'), product('E-R1', 'EBOOK', 'R-BOOK')]);
    const response = await importProducts([
      product('E-R1', 'EBOOK', 'R-BOOK'),
      product('E-R2', 'EBOOK', 'R-EBOOK'),
      product('R-BOOK', 'EBOOK'),
      product('R-EBOOK', 'BOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      {
        line: 1,
        message: '/physicalBook: product "R-BOOK" is of type EBOOK, not a physical book (BOOK), so the product is not linked to it',
      },
    ]);
    const stored = await rows();
    expect([stored['R-BOOK']!.type, stored['R-EBOOK']!.type]).toEqual(['EBOOK', 'BOOK']);
    // The link to what is no longer a BOOK is undone; the one to what became one is made.
    expect(stored['E-R1']!.physicalBookId).toBeNull();
    expect(stored['E-R2']!.physicalBookId).toBe(stored['R-EBOOK']!.id);
  });

  it('checks a target that an earlier line of the file retypes with the type it was given, once the file was read', async () => {
    await importProducts([product('S-BOOK', 'BOOK'), product('S-EBOOK', 'EBOOK'), product('E-S1', 'EBOOK', 'S-BOOK')]);
    const response = await importProducts([
      product('S-BOOK', 'EBOOK'),
      product('S-EBOOK', 'BOOK'),
      product('E-S1', 'EBOOK', 'S-BOOK'),
      product('E-S2', 'EBOOK', 'S-EBOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      {
        line: 3,
        message: '/physicalBook: product "S-BOOK" is of type EBOOK, not a physical book (BOOK), so the product is not linked to it',
      },
    ]);
    expect(response.json().outcomes).toEqual({ updated: 3, created: 1 });
    const stored = await rows();
    expect([stored['S-BOOK']!.type, stored['S-EBOOK']!.type]).toEqual(['EBOOK', 'BOOK']);
    // S-BOOK's line waited for E-S1's, which is applied without the link: no e-book names what is no BOOK.
    expect(stored['E-S1']!.physicalBookId).toBeNull();
    expect(stored['E-S2']!.physicalBookId).toBe(stored['S-EBOOK']!.id);
  });
});

// A line that makes a BOOK something else while e-books of the catalogue are linked to it is refused
// unless accepted lines of the same file relink them: otherwise they would name a physical edition
// that is no book (the BOOK's line may not write the other products, a supplier's least of all).
describe('retyping a BOOK that e-books are linked to', () => {
  const productRow = (code: string) => t.database.db.selectFrom('product').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
  const events = async (code: string) =>
    Number(
      (
        await t.database.db
          .selectFrom('integration_event')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('stream', '=', productStream(code))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const renamed = (code: string, type: string) => ({ ...product(code, type), name: `Uus ${code}` });
  const message = (book: string, linked: string) =>
    `/type: product "${book}" is the physical book (BOOK) of ${linked}, and no accepted line of this file changes their physicalBook; ` +
    'link them to another book (or to none) first, or keep its type BOOK';

  /** Refused: the BOOK's row, its events and the e-books' links are as they were. */
  async function expectUnchanged(book: string, before: Awaited<ReturnType<typeof productRow>>, eventsBefore: number) {
    expect(await productRow(book)).toEqual(before);
    expect(await events(book)).toBe(eventsBefore);
  }

  it('refuses the line when a linked e-book is not in the file, and writes nothing of it', async () => {
    await importProducts([product('T-BOOK', 'BOOK'), product('T-E1', 'EBOOK', 'T-BOOK'), product('T-A1', 'AUDIOBOOK', 'T-BOOK')]);
    const [before, eventsBefore] = [await productRow('T-BOOK'), await events('T-BOOK')];
    const response = await importProducts([renamed('T-BOOK', 'EBOOK'), product('T-A1', 'AUDIOBOOK', 'T-BOOK')]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([{ line: 1, message: message('T-BOOK', '"T-E1"') }]);
    await expectUnchanged('T-BOOK', before, eventsBefore);
    const stored = await rows();
    expect(stored['T-E1']!.physicalBookId).toBe(stored['T-BOOK']!.id);
    expect(stored['T-A1']!.physicalBookId).toBe(stored['T-BOOK']!.id);
  });

  it('retypes the BOOK when the file links its e-books to another book or to none, before or after its line', async () => {
    await importProducts([
      product('U-BOOK', 'BOOK'),
      product('U-OTHER', 'BOOK'),
      product('U-E1', 'EBOOK', 'U-BOOK'),
      product('U-E2', 'EBOOK', 'U-BOOK'),
      product('U-E3', 'EBOOK', 'U-BOOK'),
    ]);
    const response = await importProducts([
      product('U-E1', 'EBOOK', 'U-OTHER'),
      renamed('U-BOOK', 'USED_BOOK'),
      product('U-E2', 'EBOOK', 'U-OTHER'),
      product('U-E3', 'EBOOK'),
      product('U-OTHER', 'BOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([]);
    expect(response.json().outcomes).toEqual({ updated: 4, unchanged: 1 });
    const stored = await rows();
    expect(stored['U-BOOK']!.type).toBe('USED_BOOK');
    expect((await productRow('U-BOOK')).name).toBe('Uus U-BOOK');
    expect([stored['U-E1'], stored['U-E2']].map((row) => row!.physicalBookId)).toEqual([stored['U-OTHER']!.id, stored['U-OTHER']!.id]);
    expect(stored['U-E3']!.physicalBookId).toBeNull();
  });

  it("refuses the line when a linked e-book's line is refused, before or after it, and writes nothing of it", async () => {
    await importProducts([
      product('V-BOOK', 'BOOK'),
      product('V-OTHER', 'BOOK'),
      product('V-E1', 'EBOOK', 'V-BOOK'),
      product('V-E2', 'EBOOK', 'V-BOOK'),
    ]);
    const [before, eventsBefore] = [await productRow('V-BOOK'), await events('V-BOOK')];
    const bad = (code: string) => ({ ...product(code, 'EBOOK', 'V-OTHER'), shopPrice: -1 });
    // The e-book's refused line comes first: the BOOK's line is refused at once.
    let response = await importProducts([
      bad('V-E1'),
      renamed('V-BOOK', 'EBOOK'),
      product('V-E2', 'EBOOK', 'V-OTHER'),
      product('V-OTHER', 'BOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      { line: 1, message: '/shopPrice: must not be negative' },
      { line: 2, message: message('V-BOOK', '"V-E1"') },
    ]);
    await expectUnchanged('V-BOOK', before, eventsBefore);
    let stored = await rows();
    expect(stored['V-E1']!.physicalBookId).toBe(stored['V-BOOK']!.id);
    expect(stored['V-E2']!.physicalBookId).toBe(stored['V-OTHER']!.id);

    // It comes after: the BOOK's line waits for the end of the file, then is refused; the new
    // e-book linked to it meanwhile is linked, as it is still a BOOK.
    response = await importProducts([
      renamed('V-BOOK', 'EBOOK'),
      bad('V-E1'),
      product('V-E2', 'EBOOK', 'V-OTHER'),
      product('V-E3', 'EBOOK', 'V-BOOK'),
      product('V-OTHER', 'BOOK'),
    ]);
    expect(response.json().errors).toEqual([
      { line: 2, message: '/shopPrice: must not be negative' },
      { line: 1, message: message('V-BOOK', '"V-E1"') },
    ]);
    expect(response.json().outcomes).toEqual({ created: 1, unchanged: 2 });
    await expectUnchanged('V-BOOK', before, eventsBefore);
    stored = await rows();
    expect(stored['V-E1']!.physicalBookId).toBe(stored['V-BOOK']!.id);
    expect(stored['V-E3']!.physicalBookId).toBe(stored['V-BOOK']!.id);
  });

  it('retypes the BOOK when its e-book still names it, which is then not linked, before or after its line', async () => {
    await importProducts([product('W-BOOK', 'BOOK'), product('W-E1', 'EBOOK', 'W-BOOK'), product('W-E2', 'EBOOK', 'W-BOOK')]);
    const response = await importProducts([
      product('W-E1', 'EBOOK', 'W-BOOK'),
      product('W-BOOK', 'EBOOK'),
      product('W-E2', 'EBOOK', 'W-BOOK'),
    ]);
    const unlinked = '/physicalBook: product "W-BOOK" is of type EBOOK, not a physical book (BOOK), so the product is not linked to it';
    expect(response.json().errors).toEqual([
      { line: 1, message: unlinked },
      { line: 3, message: unlinked },
    ]);
    const stored = await rows();
    expect(stored['W-BOOK']!.type).toBe('EBOOK');
    expect([stored['W-E1']!.physicalBookId, stored['W-E2']!.physicalBookId]).toEqual([null, null]);
  });
});
