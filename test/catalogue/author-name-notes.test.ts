import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// A person's name may end in a note in parentheses: years ("Juhan Liiv (1864-1913)") or a role
// ("Jaan Kross (tõlkija)"). The sort name took the note for the surname, "(1864-1913), Juhan Liiv",
// so GET /author?letter=L did not find him (nor any letter: the index filed him under "(").
// The name before the note is filed now, the note kept after it: "Liiv, Juhan (1864-1913)".

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function imported(kind: string, lines: unknown[]) {
  const response = await importLines(t, kind, lines);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().errors, response.body).toEqual([]);
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

async function authors(query: string): Promise<string[]> {
  const response = await t.app.inject({ method: 'GET', url: `/author?${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<{ code: string; name: string; sortName: string }>).map(
    (item) => `${item.code}: ${item.sortName} / ${item.name}`,
  );
}

describe(`GET /author, persons whose name ends in a note, imported over HTTP, on ${engine}`, () => {
  beforeAll(async () => {
    await imported('persons', [
      { code: 'LIIV', name: 'Juhan Liiv (1864-1913)' },
      { code: 'KROSS', name: 'Jaan Kross (tõlkija)' },
      { code: 'HOMEROS', name: 'Homeros (8. saj eKr)' },
      { code: 'TAMMSAARE', name: 'A. H. Tammsaare' },
    ]);
    await imported('products', [
      book('B-LIIV', 'LIIV'),
      book('B-KROSS', 'KROSS'),
      book('B-HOMEROS', 'HOMEROS'),
      book('B-TJO', 'TAMMSAARE'),
    ]);
  });

  it('files them by the surname before the note, which stays after it', async () => {
    expect(await authors('letter=L')).toEqual(['LIIV: Liiv, Juhan (1864-1913) / Juhan Liiv (1864-1913)']);
    expect(await authors('letter=K')).toEqual(['KROSS: Kross, Jaan (tõlkija) / Jaan Kross (tõlkija)']);
    expect(await authors('letter=H')).toEqual(['HOMEROS: Homeros (8. saj eKr) / Homeros (8. saj eKr)']);
  });

  it('lists them in surname order among the others, and finds them by the start of the surname', async () => {
    expect((await authors('')).map((item) => item.split(':')[0])).toEqual(['HOMEROS', 'KROSS', 'LIIV', 'TAMMSAARE']);
    expect(await authors('q=liiv')).toEqual(['LIIV: Liiv, Juhan (1864-1913) / Juhan Liiv (1864-1913)']);
    expect(await authors('q=Kross,%20Jaan')).toEqual(['KROSS: Kross, Jaan (tõlkija) / Jaan Kross (tõlkija)']);
  });
});
