import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { ImportRunningError, withImportLock, type ImportSummary } from '../../src/infra/import/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { createBackOfficeApp, ndjson } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

// Imports of one kind never overlap (in any process), and an import that began finishes even when
// its client goes away.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const book = (code: string) => ({ code, type: 'BOOK', name: code, stores: ['WEB'], shopPrice: 9.9, vatRate: 9, availability: 'AVAILABLE' });
const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'x-app-language': 'en' });
const post = (kind: string, body: string) =>
  t.app.inject({ method: 'POST', url: `/admin/import/${kind}`, headers: headers(), payload: body });
const lockRows = () => t.database.db.selectFrom('import_lock').selectAll().execute();
const productCodes = async () =>
  (await t.database.db.selectFrom('product').select('code').orderBy('code').execute()).map((row) => row.code);

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 10) {
    if (waited > 5000) throw new Error('timed out');
    await sleep(10);
  }
}

/**
 * A test-only kind that runs `inner` once the test opens its gate: an import held in the middle
 * of its run, after the HTTP route has begun it.
 */
function gatedKind(name: string, inner: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let started!: () => void;
  const began = new Promise<void>((resolve) => (started = resolve));
  let finish!: (run: Promise<ImportSummary>) => void;
  const finished = new Promise<ImportSummary>((resolve) => (finish = resolve));
  let body = '';
  importKinds[name] = {
    usage: '',
    create: (deps, options) => async (file, report) => {
      body = file;
      started();
      await gate;
      const run = importKinds[inner]!.create(deps, options)(file, report);
      finish(run);
      return run;
    },
  };
  return { began, open, finished, file: () => body, remove: () => delete importKinds[name] };
}

describe('imports of one kind, one at a time', () => {
  it('answers 409 while an import of the kind runs elsewhere, and runs other kinds meanwhile', async () => {
    let release: (() => void) | undefined;
    const held = withImportLock(t.database.db, 'products', () => new Promise<void>((resolve) => (release = resolve)));
    try {
      await until(() => release !== undefined);
      const refused = expectErrorBody(await post('products', ndjson([book('A')])), 409, 'Conflict');
      const { expires_at: lapses } = await t.database.db
        .selectFrom('import_lock')
        .select('expires_at')
        .where('kind', '=', 'products')
        .executeTakeFirstOrThrow();
      expect(refused.message).toMatch(
        /^The import was refused: an import of products has been running since \d{4}-\d\d-\d\dT[\d:.]+Z; try again when it has finished, or, if it stopped without finishing \(its process crashed\), after (\S+Z), when its lock lapses$/,
      );
      // The time its lock lapses is the holder's: a running import renews it, a crashed one leaves it.
      expect(Date.parse(/after (\S+Z),/.exec(refused.message)![1]!)).toBe(Math.ceil(Number(lapses) / 1000) * 1000);
      expect(await productCodes()).toEqual([]);
      const other = await post('publishers', ndjson([{ code: 'P1', name: 'Varrak' }]));
      expect(other.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 0 });
    } finally {
      release?.();
      await held;
    }
    expect(await lockRows()).toEqual([]);
    expect((await post('products', ndjson([book('A')]))).json()).toMatchObject({ outcomes: { created: 1 } });
    expect(await lockRows()).toEqual([]);
  });

  it('refuses a second HTTP import of a kind while the first runs; the first then finishes', async () => {
    const gated = gatedKind('gated-serial', 'products');
    try {
      const first = post('gated-serial', ndjson([book('A'), book('S1')]));
      await gated.began;
      const second = expectErrorBody(await post('gated-serial', ndjson([book('A'), book('S2')])), 409, 'Conflict');
      expect(second.message).toContain('an import of gated-serial has been running');
      gated.open();
      expect((await first).json()).toEqual({ lines: 2, outcomes: { unchanged: 1, created: 1 }, errors: [], errorCount: 0 });
      expect(await productCodes()).toEqual(['A', 'S1']);
    } finally {
      gated.remove();
    }
  });

  it("says why in the caller's language, the lapse of the lock too: et, ru", async () => {
    const db = t.database.db;
    const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds, as the message gives them
    const lapses = new Date(now + 45_000).toISOString().replace('.000', '');
    await db
      .insertInto('import_lock')
      .values({ kind: 'series', owner: 'crashed', started_at: now - 15_000, expires_at: now + 45_000 })
      .execute();
    try {
      const refusedIn = async (language: string) => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/admin/import/series',
          headers: { ...headers(), 'x-app-language': language },
          payload: ndjson([{ code: 'S1', name: 'Sari' }]),
        });
        return expectErrorBody(response, 409, 'Conflict').message;
      };
      expect(await refusedIn('et')).toBe(
        `Import keelduti: liigi series import käib alates ${new Date(now - 15_000).toISOString().replace('.000', '')}; proovige uuesti, kui see on lõppenud, ` +
          `või, kui see katkes lõpetamata (protsess jooksis kokku), pärast ${lapses}, kui selle lukk aegub`,
      );
      expect(await refusedIn('ru')).toBe(
        `Импорт отклонён: импорт вида series выполняется с ${new Date(now - 15_000).toISOString().replace('.000', '')}; повторите попытку, когда он завершится, ` +
          `или, если он прервался, не завершившись (процесс аварийно остановился), после ${lapses}, когда истечёт его блокировка`,
      );
      expect(await db.selectFrom('series').select('code').execute()).toEqual([]);
    } finally {
      await db.deleteFrom('import_lock').where('kind', '=', 'series').execute();
    }
  });

  it('takes over the lock of a crashed process once it has expired', async () => {
    const db = t.database.db;
    const now = Date.now();
    await db
      .insertInto('import_lock')
      .values({ kind: 'publishers', owner: 'alive', started_at: now, expires_at: now + 60_000 })
      .execute();
    const refused = expectErrorBody(await post('publishers', ndjson([{ code: 'P2', name: 'Tänapäev' }])), 409, 'Conflict');
    expect(refused.message).toContain(
      `after ${new Date(Math.ceil((now + 60_000) / 1000) * 1000).toISOString().replace('.000', '')}, when its lock lapses`,
    );
    await db
      .updateTable('import_lock')
      .set({ owner: 'crashed', started_at: now - 120_000, expires_at: now - 1 })
      .execute();
    const response = await post('publishers', ndjson([{ code: 'P2', name: 'Tänapäev' }]));
    expect(response.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 0 });
    expect(await lockRows()).toEqual([]);
  });

  it('renews the lock while a long import runs, so it does not expire under it', async () => {
    const ttl = 400;
    let release: (() => void) | undefined;
    const held = withImportLock(t.database.db, 'stock', () => new Promise<void>((resolve) => (release = resolve)), ttl);
    try {
      await until(() => release !== undefined);
      await sleep(ttl * 2.5);
      await expect(withImportLock(t.database.db, 'stock', async () => 'ran', ttl)).rejects.toBeInstanceOf(ImportRunningError);
    } finally {
      release?.();
      await held;
    }
    expect(await withImportLock(t.database.db, 'stock', async () => 'ran', ttl)).toBe('ran');
  });
});

describe('a client that goes away', () => {
  it('does not stop an import that has begun; its body is removed when the import is done', async () => {
    const gated = gatedKind('gated-abort', 'products');
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const serverSocketClosed = new Promise<void>((resolve) =>
        t.app.server.once('connection', (socket: Socket) => socket.once('close', () => resolve())),
      );
      const path = '/admin/import/gated-abort?force=true';
      const client = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: headers(), agent: false });
      client.on('error', () => {});
      client.end(ndjson([book('GONE-1'), book('GONE-2')]));
      await gated.began;
      client.destroy();
      await serverSocketClosed;
      // The abort hooks have run by now; the import is still waiting at its gate.
      await sleep(100);
      gated.open();
      const summary = await gated.finished;
      expect(summary).toMatchObject({ lines: 2, errors: 0, outcomes: { created: 2 } });
      expect(await productCodes()).toEqual(expect.arrayContaining(['GONE-1', 'GONE-2']));
      await until(async () => (await lockRows()).length === 0 && !existsSync(gated.file()));
    } finally {
      gated.remove();
    }
  });
});
