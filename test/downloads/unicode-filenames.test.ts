import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldErrors } from '../helpers/http.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A book's file is saved under its title in its own language ("Kevade õied.epub", "Война и мир.epub"):
// the upload takes letters of any alphabet, and the download names it as RFC 6266 says, an ASCII
// fallback in `filename` and the name itself in `filename*`, so no raw non-ASCII byte reaches the
// header (Node refuses a header character past U+00FF, which was a 500).

let world: DownloadWorld;
const bytes = Buffer.from('not really an epub');

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '50' });
});
afterAll(async () => {
  await world?.close();
});

async function downloadedAs(): Promise<string | undefined> {
  const [item] = await downloads(world, world.customer);
  const response = await get(world, await linkPath(world, world.customer, item!.id));
  expect(response.statusCode, response.body).toBe(200);
  expect(response.rawPayload.equals(bytes)).toBe(true);
  return response.headers['content-disposition'] as string | undefined;
}

describe('a download file name in any alphabet', () => {
  it('is taken on upload and sent with an ASCII fallback and the UTF-8 name', async () => {
    const code = world.ebooks[0]!.code;
    const cases: Array<[string, string]> = [
      ['Kevade õied.epub', `attachment; filename="Kevade oied.epub"; filename*=UTF-8''Kevade%20%C3%B5ied.epub`],
      [
        'Šokolaad ja žürii (2024).epub',
        `attachment; filename="Sokolaad ja zurii (2024).epub"; filename*=UTF-8''%C5%A0okolaad%20ja%20%C5%BE%C3%BCrii%20%282024%29.epub`,
      ],
      [
        'Война и мир.epub',
        `attachment; filename="_____ _ ___.epub"; filename*=UTF-8''%D0%92%D0%BE%D0%B9%D0%BD%D0%B0%20%D0%B8%20%D0%BC%D0%B8%D1%80.epub`,
      ],
    ];
    for (const [name, disposition] of cases) {
      const uploaded = await upload(world, code, 'EPUB', bytes, `?filename=${encodeURIComponent(name)}`);
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      expect(uploaded.json().filename).toBe(name);
      expect(await downloadedAs()).toBe(disposition);
    }
    const decomposed = await upload(world, code, 'EPUB', bytes, `?filename=${encodeURIComponent('Kevade õied.epub'.normalize('NFD'))}`);
    expect(decomposed.statusCode, decomposed.body).toBe(200);
    expect(decomposed.json().filename).toBe('Kevade õied.epub'.normalize('NFC'));
  });

  it('still refuses separators, quotes, control and line-breaking characters', async () => {
    const code = world.ebooks[0]!.code;
    for (const name of [
      'õ/evil.epub',
      'õ\\evil.epub',
      'õ"b.epub',
      "õ'b.epub",
      'õ\u2028b.epub',
      'õ\u00a0b.epub',
      'õ\u202ebupe.exe',
      '.õ.epub',
      'õ;b.epub',
    ]) {
      const refused = await upload(world, code, 'EPUB', bytes, `?filename=${encodeURIComponent(name)}`);
      expect(expectFieldErrors(refused), JSON.stringify(name)).toEqual(['filename']);
    }
    // Control characters (a line break would split the header): a 422 on the field, or the 400 the query's own check gives a NUL.
    for (const name of ['õ\r\nX-Evil: 1.epub', 'õ\u0000.epub', 'õ\t.epub']) {
      const refused = await upload(world, code, 'EPUB', bytes, `?filename=${encodeURIComponent(name)}`);
      expect([400, 422], JSON.stringify(name)).toContain(refused.statusCode);
      expect(refused.body).toContain('filename');
    }
  });

  it('never reaches the header raw, not even a name stored by hand', async () => {
    const code = world.ebooks[0]!.code;
    expect((await upload(world, code, 'EPUB', bytes, '?filename=Plain.epub')).statusCode).toBe(200);
    expect(await downloadedAs()).toBe('attachment; filename="Plain.epub"');
    await world.t.database.db
      .updateTable('product_file')
      .set({ filename: 'Žürii "x"\tõ.epub' })
      .where('product_id', '=', world.ebooks[0]!.id)
      .execute();
    expect(await downloadedAs()).toBe(`attachment; filename="Zurii _x__o.epub"; filename*=UTF-8''%C5%BD%C3%BCrii%20%22x%22%09%C3%B5.epub`);
  });
});
