import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { exportUser } from '../data-export/fixtures.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { storedRateLimitKey } from '../../src/infra/rate-limit.js';

keepEachTestInOneRateLimitWindow();

// Finding 4 of issue 12: with TRUST_PROXY=true the left-most X-Forwarded-For entry, which the
// client writes, was the client address: an export user allowlisted to 10.9.9.0/24 passed from
// 203.0.113.7 by sending `X-Forwarded-For: 10.9.9.5`, and per-address rate limits could be walked
// around. A proxy appends the address it saw, so only the entries the trusted proxies wrote count.

const ALLOWED = '10.9.9.0/24';
const ATTACKER = '203.0.113.7';

async function allowlistedUser(t: TestApp) {
  return exportUser(t.database.db, [ALLOWED]);
}

/** A request to the export API that arrived through a proxy at `proxy`, which appended `seenBy`. */
function viaProxy(t: TestApp, authorization: string, forwardedFor: string, proxy = '127.0.0.1') {
  return t.app.inject({
    method: 'GET',
    url: '/export/shop',
    headers: { authorization, 'x-forwarded-for': forwardedFor },
    remoteAddress: proxy,
  });
}

describe.each([
  ['a hop count (TRUST_PROXY=1)', '1'],
  ['the proxy address block (TRUST_PROXY=127.0.0.0/8)', '127.0.0.0/8'],
])('behind one proxy, trusted by %s', (_, trustProxy) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: trustProxy, AUTH_RATE_LIMIT_PER_IP: '3/1h' } });
  });
  afterAll(() => t.close());

  it('an address written by the client does not pass an export allowlist', async () => {
    const user = await allowlistedUser(t);
    // The attacker sends `X-Forwarded-For: 10.9.9.5`; the proxy appends the address it saw.
    const body = expectErrorBody(await viaProxy(t, user.authorization, `10.9.9.5, ${ATTACKER}`), 403, 'Forbidden');
    expect(body.message).toContain(ATTACKER);
    // The partner itself, at 10.9.9.5 behind the same proxy, still passes.
    expect((await viaProxy(t, user.authorization, '10.9.9.5')).statusCode).toBe(200);
  });

  it('the per-address rate limit counts the address the proxy saw, whatever the client prepends', async () => {
    const meta = (forwardedFor: string) =>
      t.app.inject({ method: 'GET', url: '/auth/verify-email-meta?verificationToken=nope', headers: { 'x-forwarded-for': forwardedFor } });
    for (let i = 1; i <= 3; i++) expect((await meta(`198.51.100.${i}, ${ATTACKER}`)).statusCode).not.toBe(429);
    expectErrorBody(await meta(`198.51.100.99, ${ATTACKER}`), 429, 'Too Many Requests');
    // Another shopper behind the same proxy has a count of its own.
    expect((await meta('192.0.2.44')).statusCode).not.toBe(429);
    const keys = (await t.database.db.selectFrom('rate_limit').select('key').execute()).map((row) => row.key);
    expect(keys).toEqual(expect.arrayContaining([`auth:ip:${ATTACKER}`, 'auth:ip:192.0.2.44'].map(storedRateLimitKey)));
    // The addresses the client prepended count nothing: the two keys above are the only ones.
    expect(keys.filter((key) => key.startsWith('auth:ip#'))).toHaveLength(2);
  });
});

describe('trusted by address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '127.0.0.1, 172.16.0.0/12, ::1' } });
  });
  afterAll(() => t.close());

  it('walks back through trusted proxies only, on IPv4 and IPv6', async () => {
    const user = await allowlistedUser(t);
    // client -> CDN (172.16.0.3, trusted) -> local proxy (127.0.0.1): the client is 10.9.9.5.
    expect((await viaProxy(t, user.authorization, '10.9.9.5, 172.16.0.3')).statusCode).toBe(200);
    // An entry the client wrote ahead of an untrusted hop is never reached.
    expectErrorBody(await viaProxy(t, user.authorization, `10.9.9.5, ${ATTACKER}, 172.16.0.3`), 403, 'Forbidden');
    expectErrorBody(await viaProxy(t, user.authorization, `10.9.9.5, 2001:db8::7`, '::1'), 403, 'Forbidden');
    expect((await viaProxy(t, user.authorization, '10.9.9.5', '::1')).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For from a client that is not a trusted proxy', async () => {
    const user = await allowlistedUser(t);
    expectErrorBody(await viaProxy(t, user.authorization, '10.9.9.5', ATTACKER), 403, 'Forbidden');
  });
});

describe('without a proxy (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('X-Forwarded-For is ignored', async () => {
    const user = await allowlistedUser(t);
    expectErrorBody(await viaProxy(t, user.authorization, '10.9.9.5', ATTACKER), 403, 'Forbidden');
    expectErrorBody(await viaProxy(t, user.authorization, '10.9.9.5'), 403, 'Forbidden');
    expect((await viaProxy(t, user.authorization, '203.0.113.8', '10.9.9.5')).statusCode).toBe(200);
  });
});

it('TRUST_PROXY=true, which trusted every hop, is refused at start with what to set instead', () => {
  expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
  expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=1.*TRUST_PROXY=10\.0\.0\.0\/8/);
});
