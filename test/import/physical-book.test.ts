import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// An e-book's (or audiobook's) physicalBook names its printed edition: a product of type BOOK. A line
// naming another e-book, a product of another kind, or itself is refused with a message on its line,
// as an unknown reference is; a line of another type may not name one at all. A target later in the
// file is checked once the file was read: the line's product is written, its link is not made. The
// check reads the type the target has once the file is applied: a line of the file that retypes a
// catalogue product counts, whether it comes before or after the e-book's line.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await createApiKey(t.database.db, 'back-office', Date.now());
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

  it('checks a target that an earlier line of the file retypes with the type it was given', async () => {
    await importProducts([product('S-BOOK', 'BOOK'), product('S-EBOOK', 'EBOOK'), product('E-S1', 'EBOOK', 'S-BOOK')]);
    const response = await importProducts([
      product('S-BOOK', 'EBOOK'),
      product('S-EBOOK', 'BOOK'),
      product('E-S1', 'EBOOK', 'S-BOOK'),
      product('E-S2', 'EBOOK', 'S-EBOOK'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      { line: 3, message: '/physicalBook: product "S-BOOK" is of type EBOOK, not a physical book (BOOK)' },
    ]);
    const stored = await rows();
    expect([stored['S-BOOK']!.type, stored['S-EBOOK']!.type]).toEqual(['EBOOK', 'BOOK']);
    // The refused line changed nothing: E-S1 keeps the link it had (as any refused line keeps its product).
    expect(stored['E-S1']!.physicalBookId).toBe(stored['S-BOOK']!.id);
    expect(stored['E-S2']!.physicalBookId).toBe(stored['S-EBOOK']!.id);
  });
});
