import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The migrations index is appended to by whoever adds a migration, and branches merged in any
// order append an older name after a newer one; Kysely runs them by name. /site/version named the
// last key as the newest migration: after such a merge, an older one, and operators comparing it
// with the database's newest were told the schema is ahead of the build. The index is given here
// with its newest migration first.

vi.mock('../../src/db/migrations/index.js', async (original) => {
  const { migrations } = await original<typeof import('../../src/db/migrations/index.js')>();
  const names = Object.keys(migrations).sort();
  const newest = names.at(-1)!;
  return { migrations: Object.fromEntries([newest, ...names.slice(0, -1)].map((name) => [name, migrations[name]!])) };
});

let t: TestApp;
let newest: string;
beforeAll(async () => {
  const { migrations } = await import('../../src/db/migrations/index.js');
  newest = Object.keys(migrations).sort().at(-1)!;
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /site/version', () => {
  it('names the newest migration by name, whatever the order of the index', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/site/version' });
    expect(response.statusCode).toBe(200);
    expect(response.json().schemaVersion).toBe(newest);
  });
});
