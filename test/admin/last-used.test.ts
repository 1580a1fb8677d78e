import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock, systemClock } from '../../src/infra/clock.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// An operator's key and a feed client's token say when they were last used (`api-key list`,
// `event-feed list`), to the minute: a request within a minute of the kept time writes nothing.

const start = Date.UTC(2026, 11, 2, 12, 0, 0);
const clock = fixedClock(start);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t?.close());

describe('last used', () => {
  it("an operator's key: written at its first use, then again only once the kept time is a minute old", async () => {
    const key = await createApiKey(t.database.db, 'back-office', start);
    const lastUsed = async () =>
      (await t.database.db.selectFrom('api_key').select('last_used_at').where('name', '=', 'back-office').executeTakeFirstOrThrow())
        .last_used_at;
    const call = async () =>
      expect((await t.app.inject({ method: 'GET', url: '/admin/orders', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(
        200,
      );
    expect(await lastUsed()).toBeNull();
    clock.set(start + 1_000);
    await call();
    expect(Number(await lastUsed())).toBe(start + 1_000);
    clock.set(start + 60_999);
    await call();
    expect(Number(await lastUsed())).toBe(start + 1_000);
    clock.set(start + 61_000);
    await call();
    expect(Number(await lastUsed())).toBe(start + 61_000);
  });

  it("a feed client's token: the same", async () => {
    const lines: string[] = [];
    await eventFeedCommand({ db: t.database.db, clock: systemClock }, ['add', 'analytics'], (line) => lines.push(line));
    const token = lines.at(-1)!;
    const lastUsed = async () =>
      (await t.database.db.selectFrom('event_feed_client').select('last_used_at').where('name', '=', 'analytics').executeTakeFirstOrThrow())
        .last_used_at;
    const call = async () =>
      expect(
        (await t.app.inject({ method: 'GET', url: '/integration/events', headers: { authorization: `Bearer ${token}` } })).statusCode,
      ).toBe(200);
    clock.set(start + 120_000);
    await call();
    expect(Number(await lastUsed())).toBe(start + 120_000);
    clock.set(start + 150_000);
    await call();
    expect(Number(await lastUsed())).toBe(start + 120_000);
    clock.set(start + 180_000);
    await call();
    expect(Number(await lastUsed())).toBe(start + 180_000);
  });
});
