import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createAccountsTestApp, login, me, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';

// A switch of store re-issues the token it is given: not a sign-in, so the new token ends when the
// session it came from does (ACCESS_TOKEN_TTL after the login), not a whole lifetime after the
// switch. Otherwise a token (a stolen one too) switched back and forth before it ends never ended.

const DAY_MS = 86_400_000;
const clock = fixedClock(Date.now());
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ clock, env: { ACCESS_TOKEN_TTL: '30d' } });
});
afterAll(() => t.close());
beforeEach(() => clock.set(Date.now()));

const switchStore = (accessToken: string, target: string, store: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/switch-web-store',
    headers: { authorization: `Bearer ${accessToken}`, store },
    payload: { webStoreNavCode: target },
  });

describe('the lifetime of a token from /auth/switch-web-store', () => {
  it('ends with the login it came from, however often it is switched', async () => {
    const email = uniqueEmail('switch-lifetime');
    await registerVerified(t, email);
    const loggedIn = await login(t, email);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const start = clock.now();

    clock.set(start + 20 * DAY_MS);
    const web2 = await switchStore(loggedIn.json().accessToken, 'WEB2', 'WEB');
    expect(web2.statusCode, web2.body).toBe(200);
    clock.set(start + 29 * DAY_MS);
    const web = await switchStore(web2.json().accessToken, 'WEB', 'WEB2');
    expect(web.statusCode, web.body).toBe(200);
    expect((await me(t, web.json().accessToken, 'WEB')).statusCode).toBe(200);

    // 30 days after the login: the login's token has ended, and so have those re-issued from it.
    clock.set(start + 30 * DAY_MS + 1000);
    expect((await me(t, loggedIn.json().accessToken, 'WEB')).statusCode).toBe(401);
    expect((await me(t, web2.json().accessToken, 'WEB2')).statusCode).toBe(401);
    expect((await me(t, web.json().accessToken, 'WEB')).statusCode).toBe(401);
    expect((await switchStore(web.json().accessToken, 'WEB2', 'WEB')).statusCode).toBe(401);

    // A new login starts a new session of the full lifetime.
    const again = await login(t, email);
    expect(again.statusCode, again.body).toBe(200);
    clock.set(start + 59 * DAY_MS);
    expect((await me(t, again.json().accessToken, 'WEB')).statusCode).toBe(200);
  });
});
