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

/**
 * `call` (a request with the credential) at `from`, a millisecond before a minute later and a minute
 * later, the clock set each time: `last used` is written at the first and the last only.
 */
async function expectWrittenToTheMinute(from: number, call: () => Promise<number>, lastUsed: () => Promise<number | null>) {
  for (const [at, written] of [
    [from, from],
    [from + 59_999, from],
    [from + 60_000, from + 60_000],
  ]) {
    clock.set(at!);
    expect(await call()).toBe(200);
    expect(Number(await lastUsed())).toBe(written);
  }
}

const statusOf = async (url: string, token: string) =>
  (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })).statusCode;

describe('last used', () => {
  it("an operator's key: written at its first use, then again only once the kept time is a minute old", async () => {
    const key = await createApiKey(t.database.db, 'back-office', start);
    const lastUsed = async () =>
      (await t.database.db.selectFrom('api_key').select('last_used_at').where('name', '=', 'back-office').executeTakeFirstOrThrow())
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    await expectWrittenToTheMinute(start + 1_000, () => statusOf('/admin/orders', key), lastUsed);
  });

  it("a feed client's token: the same", async () => {
    const lines: string[] = [];
    await eventFeedCommand({ db: t.database.db, clock: systemClock }, ['add', 'analytics'], (line) => lines.push(line));
    const token = lines.at(-1)!;
    const lastUsed = async () =>
      (await t.database.db.selectFrom('event_feed_client').select('last_used_at').where('name', '=', 'analytics').executeTakeFirstOrThrow())
        .last_used_at;
    await expectWrittenToTheMinute(start + 120_000, () => statusOf('/integration/events', token), lastUsed);
  });
});
