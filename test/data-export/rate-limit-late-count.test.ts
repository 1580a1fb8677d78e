import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { exportUser, ymdHis } from './fixtures.js';

// A window of one minute's limit that ends half a second after the app's clock.
const WINDOW_END = Date.UTC(2026, 0, 5, 10, 0, 0);
const clock = fixedClock(WINDOW_END - 500);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { DATA_EXPORT_RATE_LIMIT: '3/1m', DATA_EXPORT_SETTLE_MS: '3000' } });
});
afterAll(() => t.close());

describe('a request counted after its settle wait', () => {
  it("is counted in the limit's window it reads in, and leaves that window's count as it was", async () => {
    const user = await exportUser(t.database.db);
    const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization: user.authorization } });
    // Its password remembered (a first check writes the address's failure count).
    expect((await get('/shop')).statusCode).toBe(200);
    // A window that ends within the second: the read waits ~3.5 s for it to settle, then is counted
    // before it reads. Counted at the time it came, in the limit's window that ends at WINDOW_END, it
    // took the count of the next window, begun meanwhile, back to one: that window let 3 more in.
    const late = get(`/session?createdTo=${encodeURIComponent(ymdHis(WINDOW_END - 1000))}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The next window of the limit, filled while the read waits.
    clock.set(WINDOW_END + 500);
    for (let i = 0; i < 3; i += 1) expect((await get('/shop')).statusCode).toBe(200);
    // The read is counted when it reads, in that full window: it reads nothing.
    expectErrorBody(await late, 429, 'Too Many Requests');
    expectErrorBody(await get('/shop'), 429, 'Too Many Requests');
  });
});
