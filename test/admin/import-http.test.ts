import { Readable } from 'node:stream';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IMPORT_BODY_LIMIT_BYTES } from '../../src/modules/admin/index.js';
import { createApiKey, listApiKeys, revokeApiKeyByName } from '../../src/modules/admin/api-keys.service.js';
import { expectErrorBody } from '../helpers/http.js';
import { createBackOfficeApp, ndjson } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

function post(kind: string, body: string | Buffer | Readable, headers: Record<string, string> = {}, query = '') {
  return t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}${query}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', ...headers },
    payload: body,
  });
}

const book = (code: string) => ({ code, type: 'BOOK', name: code, stores: ['WEB'], shopPrice: 9.9, vatRate: 9, availability: 'AVAILABLE' });
const spooledFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith('storefront-http-import-'));

/** Importing 1,200 long lines takes a second alone, and many times that on a loaded machine. */
const BIG_IMPORT_TIMEOUT_MS = 90_000;

describe('POST /admin/import/:kind', () => {
  // A test that timed out may leave its import running, holding the kind's lock: the next tests
  // are about other things, so they wait for the lock to clear rather than fail with a 409.
  beforeEach(async () => {
    await expect
      .poll(async () => (await t.database.db.selectFrom('import_lock').select('kind').execute()).map((row) => row.kind), {
        timeout: BIG_IMPORT_TIMEOUT_MS,
        interval: 100,
      })
      .toEqual([]);
  }, BIG_IMPORT_TIMEOUT_MS + 5_000);

  it('imports the body and answers with outcomes and the bad lines, 200 also when some were bad', async () => {
    const response = await post(
      'publishers',
      ndjson([{ code: 'P1', name: 'Varrak' }, 'not json', { code: 'P2' }, { code: 'P3', name: 'Tänapäev' }]),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      lines: 4,
      outcomes: { created: 2 },
      errors: [
        { line: 2, message: 'not valid JSON' },
        { line: 3, message: expect.stringContaining('name') },
      ],
      errorCount: 2,
    });
    expect(response.headers['store']).toBeUndefined();
    expect(response.headers['is_active']).toBeUndefined();
    const again = await post('publishers', ndjson([{ code: 'P1', name: 'Varrak' }]), {
      'content-type': 'application/x-ndjson; charset=utf-8',
    });
    expect(again.json()).toEqual({ lines: 1, outcomes: { unchanged: 1 }, errors: [], errorCount: 0 });
  });

  it(
    'takes bodies far over the JSON limit of the other routes, and leaves no file behind',
    async () => {
      const filesBefore = spooledFiles();
      // Few lines, long ones: the size is the point, and each line is a write (12,000 took 20 s on PostgreSQL).
      const lines = Array.from({ length: 1_200 }, (_, i) => ({ code: `BIG-${i}`, name: `Kirjastus ${i}`, description: 'x'.repeat(1_900) }));
      const body = ndjson(lines);
      expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
      const response = await post('publishers', body);
      expect(response.json()).toEqual({ lines: 1_200, outcomes: { created: 1_200 }, errors: [], errorCount: 0 });
      // The body was spooled (the import read every line of it); its file goes once the answer is sent.
      await expect.poll(() => spooledFiles().filter((name) => !filesBefore.includes(name)), { timeout: 3000 }).toEqual([]);
    },
    BIG_IMPORT_TIMEOUT_MS,
  );

  it('lists the first 1,000 bad lines and counts them all in errorCount', async () => {
    const bad = Array.from({ length: 1_005 }, (_, i) => ({ code: `CAP-${i}` }));
    const response = await post('publishers', ndjson([...bad, { code: 'CAP-OK', name: 'Kirjastus' }]));
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ lines: 1_006, outcomes: { created: 1 }, errorCount: 1_005 });
    expect(body.errors).toHaveLength(1_000);
    expect([body.errors[0].line, body.errors[999].line]).toEqual([1, 1_000]);
  });

  it('imports an empty body as no lines', async () => {
    const response = await post('publishers', '');
    expect(response.json()).toEqual({ lines: 0, outcomes: {}, errors: [], errorCount: 0 });
  });

  it('refuses a line that is not UTF-8 (a Windows-1257 export) by its number instead of storing U+FFFD for its letters', async () => {
    // "Tänapäev" as Windows-1257 (or Latin-1) writes it: ä is the one byte 0xE4.
    const latin = Buffer.from(`${JSON.stringify({ code: 'ENC-1', name: 'T_nap_ev' })}\n`, 'latin1');
    latin[latin.indexOf('_')] = 0xe4;
    latin[latin.lastIndexOf('_')] = 0xe4;
    const body = Buffer.concat([
      latin,
      // UTF-8, with Windows line ends, is read as before: letters, the euro sign and a last line without one.
      Buffer.from(`${JSON.stringify({ code: 'ENC-2', name: 'Tänapäev €' })}\r\n${JSON.stringify({ code: 'ENC-3', name: 'Ümar' })}`),
    ]);
    const response = await post('publishers', body);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      lines: 3,
      outcomes: { created: 2 },
      errors: [{ line: 1, message: expect.stringContaining('not UTF-8') }],
      errorCount: 1,
    });
    const stored = await t.database.db
      .selectFrom('publisher')
      .select(['code', 'name'])
      .where('code', 'like', 'ENC-%')
      .orderBy('code')
      .execute();
    expect(stored).toEqual([
      { code: 'ENC-2', name: 'Tänapäev €' },
      { code: 'ENC-3', name: 'Ümar' },
    ]);
  });

  it('skips a line over 16 MiB unread, by its number, and goes on with the next', async () => {
    // What a JSON array on one line (not NDJSON) or a file without line ends looks like.
    const huge = JSON.stringify({ code: 'HUGE', name: 'x'.repeat(17 * 1024 * 1024) });
    const response = await post('publishers', `${huge}\n${JSON.stringify({ code: 'AFTER-HUGE', name: 'Järgmine' })}\n`);
    expect(response.json()).toEqual({
      lines: 2,
      outcomes: { created: 1 },
      errors: [{ line: 1, message: 'longer than 16 MiB, not read (is the file NDJSON, one record a line?)' }],
      errorCount: 1,
    });
  });

  it('needs an operator key: 401 with WWW-Authenticate for a missing, unknown or revoked one', async () => {
    const body = ndjson([{ code: 'P9', name: 'x' }]);
    const missing = await post('publishers', body, { authorization: '' });
    expectErrorBody(missing, 401, 'Unauthorized');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="storefront-admin"');
    for (const authorization of [`Bearer ${'x'.repeat(43)}`, 'Bearer short', 'Basic YWJjOmRlZg==', 'Bearer']) {
      const response = await post('publishers', body, { authorization });
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="storefront-admin", error="invalid_(token|request)"$/);
    }
    const revoked = await createApiKey(t.database.db, 'old', Date.now());
    expect((await post('publishers', body, { authorization: `Bearer ${revoked}` })).statusCode).toBe(200);
    expect(await revokeApiKeyByName(t.database.db, 'old', Date.now())).toBe('revoked');
    expectErrorBody(await post('publishers', body, { authorization: `Bearer ${revoked}` }), 401, 'Unauthorized');
    const keys = await listApiKeys(t.database.db);
    expect(keys.map((k) => [k.name, k.last_used_at !== null, k.revoked_at !== null])).toEqual([
      ['back-office', true, false],
      ['old', true, true],
    ]);
    const stored = await t.database.db.selectFrom('api_key').select('key_hash').execute();
    expect(stored.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash) && row.key_hash !== key)).toBe(true);
    expect(await t.database.db.selectFrom('publisher').select('code').where('code', '=', 'P9').execute()).toHaveLength(1);
  });

  it('answers 404 for an unknown kind, 415 for another content type, 400 for a bad force flag', async () => {
    const unknown = expectErrorBody(await post('unicorns', '{}'), 404, 'Not Found');
    expect(unknown.message).toContain('products');
    expectErrorBody(
      await post('publishers', '{"code":"P1","name":"x"}', { 'content-type': 'application/json' }),
      415,
      'Unsupported Media Type',
    );
    expectErrorBody(await post('publishers', 'x', { 'content-type': 'text/plain' }), 415, 'Unsupported Media Type');
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: '/admin/import/publishers', headers: { authorization: `Bearer ${key}` } }),
      415,
      'Unsupported Media Type',
    );
    expectErrorBody(await post('publishers', '', {}, '?force=maybe'), 400, 'Bad Request');
  });

  it('answers 413 over the body limit, by the declared length or while reading, and leaves no file behind', async () => {
    const filesBefore = spooledFiles();
    const declared = await post('publishers', Readable.from(['{}']), { 'content-length': String(IMPORT_BODY_LIMIT_BYTES + 1) });
    expectErrorBody(declared, 413, 'Payload Too Large');
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const streamed = await post(
      'publishers',
      Readable.from(
        (function* () {
          for (let i = 0; i <= 64; i += 1) yield chunk;
        })(),
      ),
    );
    const body = expectErrorBody(streamed, 413, 'Payload Too Large');
    expect(body.message).toContain(String(IMPORT_BODY_LIMIT_BYTES));
    // The streamed body was spooled until it passed the limit (the 413 comes from the spooling);
    // its file is removed when the response has been sent (onResponse runs just after).
    await expect.poll(() => spooledFiles().filter((name) => !filesBefore.includes(name)), { timeout: 3000 }).toEqual([]);
  });

  it('refuses a product feed that would deactivate most of the catalogue with 409 unless force=true', async () => {
    const first = await post('products', ndjson(['A', 'B', 'C'].map(book)));
    expect(first.json()).toMatchObject({ outcomes: { created: 3 }, errors: [] });
    const refused = expectErrorBody(await post('products', ndjson([book('A')]), { 'x-app-language': 'en' }), 409, 'Conflict');
    expect(refused.message).toBe(
      'The import was refused: the file would deactivate 2 of the 3 active products (more than half); nothing was imported. ' +
        'Check that the feed is complete, or force it (--force, or ?force=true over HTTP).',
    );
    // In Estonian and Russian the reason is translated too, not only the prefix.
    const inEstonian = expectErrorBody(await post('products', ndjson([book('A')]), { 'x-app-language': 'et' }), 409, 'Conflict');
    expect(inEstonian.message).toBe(
      'Import keelduti: fail deaktiveeriks 3 aktiivsest tootest 2 (üle poole); midagi ei imporditud. ' +
        'Kontrollige, et fail on täielik, või importige sunniviisiliselt (--force või HTTP kaudu ?force=true).',
    );
    const inRussian = expectErrorBody(await post('products', ndjson([book('A')]), { 'x-app-language': 'ru' }), 409, 'Conflict');
    expect(inRussian.message).toBe(
      'Импорт отклонён: файл деактивировал бы 2 из 3 активных товаров (больше половины); ничего не импортировано. ' +
        'Проверьте, что файл полный, или выполните импорт принудительно (--force или ?force=true по HTTP).',
    );
    const forced = await post('products', ndjson([book('A')]), {}, '?force=true');
    expect(forced.json()).toEqual({ lines: 1, outcomes: { unchanged: 1, deactivated: 2 }, errors: [], errorCount: 0 });
  });

  it('keeps a product active whose line in the full feed is bad as bytes or as JSON: its product is still listed', async () => {
    // Forced: the catalogue is then these four whatever the tests before left.
    const codes = ['A', 'B', 'ENC-P', 'DUP-P'];
    const first = await post('products', ndjson(codes.map((code) => book(code))), {}, '?force=true');
    expect(first.json()).toMatchObject({ errors: [] });
    const latin = Buffer.from(`${JSON.stringify({ ...book('ENC-P'), name: 'T_nap_ev' })}\n`, 'latin1');
    latin[latin.indexOf('_')] = 0xe4;
    const twice = `${JSON.stringify(book('DUP-P')).slice(0, -1)},"shopPrice":1.99}`;
    const feed = await post('products', Buffer.concat([Buffer.from(ndjson([book('A'), book('B')]) + '\n'), latin, Buffer.from(twice)]));
    expect(feed.json()).toEqual({
      lines: 4,
      outcomes: { unchanged: 2 },
      errors: [
        { line: 3, message: expect.stringContaining('not UTF-8') },
        { line: 4, message: expect.stringContaining('"shopPrice" is given twice') },
      ],
      errorCount: 2,
    });
    const stored = await t.database.db
      .selectFrom('product')
      .select(['code', 'name', 'is_active', 'shop_price_cents'])
      .where('code', 'in', ['ENC-P', 'DUP-P'])
      .orderBy('code')
      .execute();
    expect(stored.map((row) => [row.code, row.name, Boolean(row.is_active), Number(row.shop_price_cents)])).toEqual([
      ['DUP-P', 'DUP-P', true, 990],
      ['ENC-P', 'ENC-P', true, 990],
    ]);
  });

  it('refuses a line that gives a member twice, whichever object holds it, and reads quotes and brackets in strings as text', async () => {
    const response = await post(
      'publishers',
      [
        '{"code":"TWICE-1","name":"Esimene","code":"TWICE-2"}',
        JSON.stringify({ code: 'TWICE-3', name: 'Sulg { "code": [ ] \\', description: '"name":"x"' }),
        '{"code":"TWICE-4","name":"a","n\\u0061me":"b"}',
      ].join('\n'),
    );
    expect(response.json()).toEqual({
      lines: 3,
      outcomes: { created: 1 },
      errors: [
        { line: 1, message: '"code" is given twice in one object; which one is meant?' },
        { line: 3, message: '"name" is given twice in one object; which one is meant?' },
      ],
      errorCount: 2,
    });
    const stored = await t.database.db.selectFrom('publisher').select('code').where('code', 'like', 'TWICE-%').execute();
    expect(stored.map((row) => row.code)).toEqual(['TWICE-3']);
  });

  it("is left out of the public /openapi.json (the operators' document has it: test/http/api-docs.test.ts)", async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(spec.paths['/admin/import/{kind}']).toBeUndefined();
  });
});
