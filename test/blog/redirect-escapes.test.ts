import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as upperCaseEscapes from '../../src/db/migrations/2026_12_09_1030_upper_case_redirect_escapes.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent } from './helpers.js';

// A percent escape's hex digits are case-insensitive (RFC 3986 2.1: `%c3%a4` is `%C3%A4`), and old
// systems and spreadsheets of old URLs write them in lower case. A redirect imported so was found by
// that exact spelling only: not from the character itself (`/ä`, a list typed by hand) nor from a
// browser's location (upper case, as the URL parser and encodeURIComponent write escapes).

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const lookUp = (path: string) => t.app.inject({ method: 'GET', url: `/external-url?path=${encodeURIComponent(path)}` });

async function expectFound(spellings: string[], target: string) {
  for (const spelling of spellings) {
    const found = await lookUp(spelling);
    expect(found.statusCode, `${spelling}: ${found.body}`).toBe(200);
    expect(found.json()).toMatchObject({ target });
  }
}

describe('GET /external-url of an old path imported with lower-case escapes', () => {
  it('is found raw, in upper-case and in lower-case escapes', async () => {
    const res = await importContent(t, 'redirects', [
      { code: 'LOWER', store: 'WEB', path: '/%c3%a4ri/%c3%b5pik?sari=%c3%96%c3%b6bik', target: '/uus/1' },
      { code: 'LOWER-URL', store: 'WEB', path: 'https://old.example/%d0%ba%d0%bd%d0%b8%d0%b3%d0%b8', target: '/uus/2' },
      { code: 'LOWER-ASCII', store: 'WEB', path: '/a%2fb', target: '/uus/3' },
    ]);
    expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
    await expectFound(
      ['/äri/õpik?sari=Ööbik', '/%C3%A4ri/%C3%B5pik?sari=%C3%96%C3%B6bik', '/%c3%a4ri/%c3%b5pik?sari=%c3%96%c3%b6bik'],
      '/uus/1',
    );
    await expectFound(['/книги', `/${encodeURIComponent('книги')}`, 'https://shop.example/%d0%ba%d0%bd%d0%b8%d0%b3%d0%b8/'], '/uus/2');
    // An escape of an ASCII character is the same escape in either case, and still not the character.
    await expectFound(['/a%2fb', '/a%2Fb'], '/uus/3');
    expectErrorBody(await lookUp('/a/b'), 404, 'Not Found');
  });

  it('is one path with its upper-case spelling: a second redirect of it is refused as taken', async () => {
    const first = await importContent(t, 'redirects', [{ code: 'TAKEN-1', store: 'WEB', path: '/%c3%bc', target: '/uus/4' }]);
    expect(first.json(), first.body).toMatchObject({ errorCount: 0 });
    const second = await importContent(t, 'redirects', [{ code: 'TAKEN-2', store: 'WEB', path: '/%C3%BC', target: '/uus/5' }]);
    expect(second.json(), second.body).toMatchObject({ errorCount: 1 });
    await expectFound(['/ü', '/%c3%bc'], '/uus/4');
  });

  // Raw and percent-encoded are one old URL too (a browser asks in escapes, a hand-typed link raw): two
  // redirects of it would send a shopper to one target or the other by how the front-end spelt the path.
  it('is one path with its raw spelling: a second redirect of it is refused as taken', async () => {
    const first = await importContent(t, 'redirects', [{ code: 'RAW-1', store: 'WEB', path: '/müük', target: '/uus/6' }]);
    expect(first.json(), first.body).toMatchObject({ errorCount: 0 });
    const second = await importContent(t, 'redirects', [
      { code: 'RAW-2', store: 'WEB', path: '/m%c3%bc%c3%bck', target: '/uus/7' },
      { code: 'RAW-3', store: 'WEB2', path: '/m%C3%BC%C3%BCk', target: '/uus/8' },
    ]);
    expect(second.json(), second.body).toMatchObject({ errorCount: 1, errors: [expect.objectContaining({ line: 1 })] });
    await expectFound(['/müük', '/m%C3%BC%C3%BCk'], '/uus/6');
    // The same code may still be given another spelling of its own path.
    const again = await importContent(t, 'redirects', [{ code: 'RAW-1', store: 'WEB', path: '/m%C3%BC%C3%BCk', target: '/uus/9' }]);
    expect(again.json(), again.body).toMatchObject({ errorCount: 0 });
    await expectFound(['/müük', '/m%c3%bc%c3%bck'], '/uus/9');
  });

  // The front-end would send the shopper to the target, ask for it as an old URL, and be sent there again.
  it('refuses a redirect to its own path in any spelling of it', async () => {
    for (const [code, path, target] of [
      ['LOOP-1', '/%c3%b6%c3%b6', '/%c3%b6%c3%b6'],
      ['LOOP-2', '/%c3%b6%c3%b6', '/%C3%B6%C3%B6'],
      ['LOOP-3', '/ring', '/ring/'],
      ['LOOP-4', '/ring', '/ring#top'],
      ['LOOP-5', '/öö', '/%C3%B6%C3%B6'],
    ]) {
      const res = await importContent(t, 'redirects', [{ code, store: 'WEB', path, target }]);
      expect(res.json(), `${path} -> ${target}: ${res.body}`).toMatchObject({ errorCount: 1 });
    }
    // Another query is another old URL, and a full URL another site's page.
    const res = await importContent(t, 'redirects', [
      { code: 'NO-LOOP-1', store: 'WEB', path: '/ring', target: '/ring?uus=1' },
      { code: 'NO-LOOP-2', store: 'WEB', path: '/ring2', target: 'https://other.example/ring2' },
    ]);
    expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
  });

  // The answer's `url` is the same full URL for a target `/kodu` and `<front-end URL>/kodu`: the front-end
  // cannot tell them apart, and goes round alike.
  it("refuses a redirect to its own path as a full URL of the store's front-end", async () => {
    const store = await t.database.db.selectFrom('web_store').select('frontend_url').where('code', '=', 'WEB').executeTakeFirstOrThrow();
    for (const [code, path, target] of [
      ['FULL-LOOP-1', '/kodu', `${store.frontend_url}/kodu`],
      ['FULL-LOOP-2', 'https://old.example/kodu/%c3%b5', `${store.frontend_url.toUpperCase()}/kodu/õ/#top`],
    ]) {
      const res = await importContent(t, 'redirects', [{ code, store: 'WEB', path, target }]);
      expect(res.json(), `${path} -> ${target}: ${res.body}`).toMatchObject({
        errorCount: 1,
        errors: [expect.objectContaining({ message: expect.stringContaining('target') })],
      });
    }
    const res = await importContent(t, 'redirects', [
      { code: 'FULL-NO-LOOP-1', store: 'WEB', path: '/kodu2', target: `${store.frontend_url}/kodu2?uus=1` },
      { code: 'FULL-NO-LOOP-2', store: 'WEB', path: '/kodu3', target: `${store.frontend_url}/kodu3x` },
    ]);
    expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
  });

  it('is found once the migration has written the rows stored before in lower-case escapes', async () => {
    const db = t.database.db;
    const row = (code: string, path: string) => ({
      code,
      store_code: 'WEB',
      path,
      target: `/uus/${code}`,
      status: 301,
      is_active: true,
      hits: 0,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    // Stored as the import kept them before: lower case, and two spellings of one path (both kept;
    // the upper-case one, which lookups now ask for, stays as it is).
    await db
      .insertInto('redirect')
      .values([row('OLD-1', '/vana/%c3%b5un'), row('OLD-2', '/kaks/%e2%82%ac'), row('OLD-3', '/kaks/%E2%82%AC'), row('OLD-4', '/%7euser')])
      .execute();
    await upperCaseEscapes.up(db);
    await expectFound(['/vana/õun', '/vana/%C3%B5un'], '/uus/OLD-1');
    await expectFound(['/kaks/€', '/kaks/%e2%82%ac'], '/uus/OLD-3');
    await expectFound(['/%7Euser', '/%7euser'], '/uus/OLD-4');
    const paths = await db.selectFrom('redirect').select(['code', 'path']).where('code', 'like', 'OLD-%').orderBy('code').execute();
    expect(paths).toEqual([
      { code: 'OLD-1', path: '/vana/%C3%B5un' },
      { code: 'OLD-2', path: '/kaks/%e2%82%ac' },
      { code: 'OLD-3', path: '/kaks/%E2%82%AC' },
      { code: 'OLD-4', path: '/%7Euser' },
    ]);
  });
});

// The rows the migration finds with lower-case escapes where another redirect already holds a spelling of the
// same path. Whatever a lookup answered before for the spellings a browser or a typed link sends must still be
// answered, and one old URL must not answer two targets by how it was spelt.
describe('the migration to upper-case escapes, where another spelling of the path is stored', () => {
  const insert = async (rows: Array<{ code: string; path: string; active: boolean }>) =>
    t.database.db
      .insertInto('redirect')
      .values(
        rows.map(({ code, path, active }) => ({
          code,
          store_code: 'WEB',
          path,
          target: `/uus/${code}`,
          status: 301,
          is_active: active,
          hits: 0,
          created_at: Date.now(),
          updated_at: Date.now(),
        })),
      )
      .execute();

  // An operator switched the upper-case spelling off and kept the lower-case one: that one answered
  // (a printed QR code of it holds its spelling), and must not become a 404 for every spelling.
  it('keeps an active lower-case redirect found when the upper-case spelling is an inactive one', async () => {
    await insert([
      { code: 'KEEP-ON', path: '/hoia/%c3%a4', active: true },
      { code: 'KEEP-OFF', path: '/hoia/%C3%A4', active: false },
    ]);
    await upperCaseEscapes.up(t.database.db);
    await expectFound(['/hoia/%c3%a4', '/hoia/%C3%A4', '/hoia/ä'], '/uus/KEEP-ON');
    // The inactive one is kept, with the spelling the active one had.
    const off = await t.database.db.selectFrom('redirect').select('path').where('code', '=', 'KEEP-OFF').executeTakeFirst();
    expect(off).toEqual({ path: '/hoia/%c3%a4' });
  });

  // A browser's location (upper case) found the raw one before; it must still, and so must every other spelling.
  it('leaves a lower-case redirect as it is when the raw spelling is an active one', async () => {
    await insert([
      { code: 'RAW-ON', path: '/toores/ä', active: true },
      { code: 'RAW-LOWER', path: '/toores/%c3%a4', active: true },
    ]);
    await expectFound(['/toores/%C3%A4', '/toores/ä'], '/uus/RAW-ON');
    await upperCaseEscapes.up(t.database.db);
    await expectFound(['/toores/%C3%A4', '/toores/ä', '/toores/%c3%a4'], '/uus/RAW-ON');
  });

  it('writes a lower-case redirect in upper case when the raw spelling is an inactive one', async () => {
    await insert([
      { code: 'RAW-OFF', path: '/vaikne/ä', active: false },
      { code: 'RAW-OFF-LOWER', path: '/vaikne/%c3%a4', active: true },
    ]);
    await upperCaseEscapes.up(t.database.db);
    await expectFound(['/vaikne/%C3%A4', '/vaikne/ä', '/vaikne/%c3%a4'], '/uus/RAW-OFF-LOWER');
  });
});
