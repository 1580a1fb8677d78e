import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// GET /site/ready: 200 while the database answers, its schema is this build's and the search index
// can answer; otherwise 503 in the documented error shape, naming every reason.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ready = (app: TestApp = t, language?: string) =>
  app.app.inject({ method: 'GET', url: '/site/ready', headers: language ? { 'x-app-language': language } : {} });
const newest = Object.keys(migrations).at(-1)!;

describe('GET /site/ready', () => {
  it('answers 200 when the database, the migrations and the search index are ready', async () => {
    const response = await ready();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', database: 'ok', migrations: 'ok', search: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 naming the pending migration, and 200 again once it has run', async () => {
    await sql`delete from kysely_migration where name = ${newest}`.execute(t.database.db);
    try {
      const response = await ready(t, 'en');
      const body = expectErrorBody(response, 503, 'Service Unavailable');
      expect(body.message).toBe(`The service is not ready: the database needs migrations (${newest}).`);
      expect(response.headers['cache-control']).toBe('no-store');
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${newest}, ${new Date().toISOString()})`.execute(t.database.db);
    }
    expect((await ready()).statusCode).toBe(200);
  });

  it('answers 503 while the search index is being rebuilt, with every reason at once, in the caller’s language', async () => {
    await sql`update search_state set status = 'building' where id = 1`.execute(t.database.db);
    await sql`delete from kysely_migration where name = ${newest}`.execute(t.database.db);
    try {
      const body = expectErrorBody(await ready(t, 'en'), 503, 'Service Unavailable');
      expect(body.message).toBe(
        `The service is not ready: the database needs migrations (${newest}); the search index is not ready (building).`,
      );
      const et = expectErrorBody(await ready(t, 'et'), 503, 'Service Unavailable');
      expect(et.message).toContain('otsinguindeks ei ole valmis');
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${newest}, ${new Date().toISOString()})`.execute(t.database.db);
      await sql`update search_state set status = 'ready' where id = 1`.execute(t.database.db);
    }
    expect((await ready()).statusCode).toBe(200);
  });

  it('answers 503 when the database does not answer, without internals', async () => {
    const broken = await createTestApp();
    try {
      await broken.database.close();
      const body = expectErrorBody(await ready(broken, 'en'), 503, 'Service Unavailable');
      expect(body.message).toBe('The service is not ready: the database does not answer.');
    } finally {
      await broken.app.close();
    }
    // Liveness is unchanged by readiness: /site/health of a ready app still answers at once.
    expect((await t.app.inject({ method: 'GET', url: '/site/health' })).statusCode).toBe(200);
  });

  it('is in the API document with its 503', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/site/ready'].get.responses)).toEqual(expect.arrayContaining(['200', '503']));
  });
});
