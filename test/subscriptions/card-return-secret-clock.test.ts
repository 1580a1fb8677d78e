import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The secret the card page's return links are signed with was made as the routes registered, stamped by
// the system's time (Date.now()) whatever clock the app ran by: now it is made at the first request that
// needs it, at that request's action time, as the other routes stamp what they write.

const clock = fixedClock(Date.UTC(2025, 0, 6, 9));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t?.close());

it("makes the card return links' secret at the first return, by the app's clock", async () => {
  const secret = () => t.database.db.selectFrom('app_secret').select('created_at').where('name', '=', 'card-return').executeTakeFirst();
  expect(await secret()).toBeUndefined();
  clock.advance(60_000);
  const back = await t.app.inject({ method: 'GET', url: `/subscription-credit-card/return?cardId=1&checksum=${'0'.repeat(64)}` });
  expect(back.statusCode, back.body).toBe(404);
  expect(Number((await secret())?.created_at)).toBe(clock.now());
});
