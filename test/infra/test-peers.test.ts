import { createHash, createHmac } from 'node:crypto';
import { createRemoteJWKSet, importPKCS8, jwtVerify, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFacebook, type FakeFacebook } from '../helpers/facebook-graph.js';
import { startTestIdp, type TestIdp } from '../helpers/oidc-provider.js';

// Self-test of the social-login peers, without our service: a real OpenID provider and a fake Facebook.

const REDIRECT_URI = 'http://127.0.0.1:9/auth/callback';

async function discover(idp: TestIdp, secret: string | client.ClientAuth = idp.clientSecret) {
  const auth = typeof secret === 'string' ? undefined : secret;
  return client.discovery(new URL(idp.issuer), idp.clientId, typeof secret === 'string' ? secret : undefined, auth, {
    execute: [client.allowInsecureRequests],
  });
}

async function startFlow(config: client.Configuration, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
}

describe('test OpenID provider (Google-style)', () => {
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    idp.addAccount({ sub: 'g-123', email: 'ada@example.com', email_verified: true, given_name: 'Ada', family_name: 'Lovelace' });
  });
  afterAll(() => idp?.close());

  it('runs a code flow with PKCE, state and nonce; the ID token carries the profile claims', async () => {
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const config = await discover(idp);
    const { url, checks } = await startFlow(config, { prompt: 'select_account' });

    const back = await idp.authorize(url.href, 'g-123');
    expect(back.method).toBe('GET');
    expect(back.url.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(new URL(back.url).searchParams.get('iss')).toBe(idp.issuer);

    const tokens = await client.authorizationCodeGrant(config, new URL(back.url), checks);
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      iss: idp.issuer,
      aud: idp.clientId,
      sub: 'g-123',
      nonce: checks.expectedNonce,
      email: 'ada@example.com',
      email_verified: true,
      given_name: 'Ada',
      family_name: 'Lovelace',
    });
  });

  it('rejects a wrong PKCE verifier and a wrong client secret at the token endpoint', async () => {
    const config = await discover(idp);
    const first = await startFlow(config);
    const back = await idp.authorize(first.url.href, 'g-123');
    await expect(
      client.authorizationCodeGrant(config, new URL(back.url), { ...first.checks, pkceCodeVerifier: client.randomPKCECodeVerifier() }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    const wrong = await discover(idp, 'not-the-secret');
    const second = await startFlow(wrong);
    const back2 = await idp.authorize(second.url.href, 'g-123');
    await expect(client.authorizationCodeGrant(wrong, new URL(back2.url), second.checks)).rejects.toMatchObject({
      error: 'invalid_client',
    });
  });

  it('returns access_denied when the user denies, and refuses unknown accounts', async () => {
    const config = await discover(idp);
    const { url, checks } = await startFlow(config);
    const back = await idp.authorize(url.href, 'g-123', { deny: true });
    const params = new URL(back.url).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(checks.expectedState);

    await expect(idp.authorize(url.href, 'nobody')).rejects.toThrow(/unknown account/);
  });

  it('mints native-app ID tokens that verify against the JWKS; alg none and foreign keys do not', async () => {
    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    const verify = (token: string) => jwtVerify(token, jwks, { issuer: idp.issuer, audience: idp.clientId });

    const token = await idp.idToken({ sub: 'g-123', email: 'ada@example.com', email_verified: true, nonce: 'n-1' });
    const { payload, protectedHeader } = await verify(token);
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: 'g-123', email: 'ada@example.com', nonce: 'n-1' });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(600);

    await expect(verify(await idp.idToken({ sub: 'g-123' }, { alg: 'none' }))).rejects.toThrow();
    await expect(verify(await idp.idToken({ sub: 'g-123' }, { foreignKey: true }))).rejects.toThrow(/signature/);
    await expect(verify(await idp.idToken({ sub: 'g-123', aud: 'someone-else' }))).rejects.toThrow(/aud/);
    await expect(verify(await idp.idToken({ sub: 'g-123', iss: 'https://evil.example' }))).rejects.toThrow(/iss/);
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expect(verify(await idp.idToken({ sub: 'g-123', iat: past - 600, exp: past }))).rejects.toThrow(/exp/);
  });
});

describe('test OpenID provider (Apple-style)', () => {
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], responseModes: ['form_post'], appleStyle: true });
    idp.addAccount({ sub: '001234.abcd', email: 'x7@privaterelay.appleid.com', email_verified: true });
  });
  afterAll(() => idp?.close());

  async function appleSecret(overrides: { sub?: string; kid?: string } = {}) {
    const apple = idp.apple;
    if (!apple) throw new Error('no Apple key material');
    const key = await importPKCS8(apple.privateKeyPem, 'ES256');
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: overrides.kid ?? apple.keyId })
      .setIssuer(apple.teamId)
      .setSubject(overrides.sub ?? idp.clientId)
      .setAudience('https://appleid.apple.com')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  }

  it('answers with form_post and accepts an ES256 JWT as client_secret (client_secret_post)', async () => {
    const config = await discover(idp, client.ClientSecretPost(await appleSecret()));
    const { url, checks } = await startFlow(config, { response_mode: 'form_post', scope: 'openid name email' });

    const back = await idp.authorize(url.href, '001234.abcd');
    expect(back).toMatchObject({ method: 'POST', url: REDIRECT_URI, contentType: 'application/x-www-form-urlencoded' });
    const form = new URLSearchParams(back.body);
    expect(form.get('code')).toBeTruthy();
    expect(form.get('state')).toBe(checks.expectedState);

    const request = new Request(back.url, { method: 'POST', headers: { 'content-type': back.contentType ?? '' }, body: back.body });
    const tokens = await client.authorizationCodeGrant(config, request, checks);
    expect(tokens.claims()).toMatchObject({ sub: '001234.abcd', email: 'x7@privaterelay.appleid.com', email_verified: true });
  });

  it('rejects a client_secret JWT with the wrong kid or subject, and query response mode', async () => {
    for (const bad of [await appleSecret({ kid: 'WRONGKEY01' }), await appleSecret({ sub: 'another.client' })]) {
      const config = await discover(idp, client.ClientSecretPost(bad));
      const { url, checks } = await startFlow(config, { response_mode: 'form_post' });
      const back = await idp.authorize(url.href, '001234.abcd');
      const request = new Request(back.url, { method: 'POST', headers: { 'content-type': back.contentType ?? '' }, body: back.body });
      await expect(client.authorizationCodeGrant(config, request, checks)).rejects.toMatchObject({ error: 'invalid_client' });
    }

    const config = await discover(idp);
    const { url } = await startFlow(config, { response_mode: 'query' });
    const refused = new URL((await idp.authorize(url.href, '001234.abcd')).url).searchParams;
    expect(refused.get('error')).toBe('invalid_request');
    expect(refused.get('error_description')).toMatch(/response_mode/);
  });

  it('carries error=access_denied in the form when the user denies', async () => {
    const config = await discover(idp);
    const { url } = await startFlow(config, { response_mode: 'form_post' });
    const back = await idp.authorize(url.href, '001234.abcd', { deny: true });
    expect(back.method).toBe('POST');
    expect(new URLSearchParams(back.body).get('error')).toBe('access_denied');
  });
});

describe('fake Facebook', () => {
  let fb: FakeFacebook;
  const user = { id: '10220000000000001', email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' };

  beforeAll(async () => {
    fb = await startFakeFacebook();
  });
  afterAll(() => fb?.close());

  function dialog(challenge?: string, state = 'st-1') {
    const url = new URL(fb.dialogUrl);
    url.search = new URLSearchParams({
      client_id: fb.appId,
      redirect_uri: REDIRECT_URI,
      state,
      response_type: 'code',
      scope: 'email,public_profile',
      ...(challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {}),
    }).toString();
    return url.href;
  }

  async function graph(path: string, query: Record<string, string>) {
    const url = new URL(`${fb.graphUrl}/${path}`);
    url.search = new URLSearchParams(query).toString();
    const response = await fetch(url);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('authorize -> code -> access_token -> debug_token -> me', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const back = await fb.authorize(dialog(challenge), user);
    const params = new URL(back.url).searchParams;
    expect(back.url.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(params.get('state')).toBe('st-1');
    const code = params.get('code') ?? '';

    const exchange = { client_id: fb.appId, client_secret: fb.appSecret, redirect_uri: REDIRECT_URI, code };
    expect((await graph('oauth/access_token', { ...exchange, code_verifier: 'wrong' })).status).toBe(400);
    expect((await graph('oauth/access_token', { ...exchange, client_secret: 'nope', code_verifier: verifier })).status).toBe(400);
    expect((await graph('oauth/access_token', { ...exchange, redirect_uri: `${REDIRECT_URI}/x`, code_verifier: verifier })).status).toBe(
      400,
    );
    const token = await graph('oauth/access_token', { ...exchange, code_verifier: verifier });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'bearer', expires_in: expect.any(Number) });
    const accessToken = String(token.body.access_token);
    const reused = await graph('oauth/access_token', { ...exchange, code_verifier: verifier });
    expect(reused).toMatchObject({ status: 400, body: { error: { type: 'OAuthException', code: 100 } } });

    const appToken = `${fb.appId}|${fb.appSecret}`;
    const debug = await graph('debug_token', { input_token: accessToken, access_token: appToken });
    expect(debug.body.data).toMatchObject({
      app_id: fb.appId,
      type: 'USER',
      is_valid: true,
      user_id: user.id,
      scopes: ['email', 'public_profile'],
    });
    expect((await graph('debug_token', { input_token: accessToken, access_token: `${fb.appId}|wrong` })).status).toBe(400);

    const proof = createHmac('sha256', fb.appSecret).update(accessToken).digest('hex');
    const me = await graph('me', { fields: 'id,email,first_name,last_name', access_token: accessToken, appsecret_proof: proof });
    expect(me).toEqual({ status: 200, body: user });
    expect((await graph('me', { fields: 'id', access_token: 'EAAnope' })).status).toBe(400);

    expect(fb.requests.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/dialog/oauth', '/v19.0/oauth/access_token', '/v19.0/debug_token', '/v19.0/me']),
    );
  });

  it('reports other apps, expired and unknown tokens; returns only existing fields; denial', async () => {
    const appToken = `${fb.appId}|${fb.appSecret}`;
    const other = fb.issueToken(user, { appId: '999' });
    expect((await graph('debug_token', { input_token: other, access_token: appToken })).body.data).toMatchObject({
      app_id: '999',
      is_valid: true,
    });
    const expired = fb.issueToken(user, { expired: true });
    expect((await graph('debug_token', { input_token: expired, access_token: appToken })).body.data).toMatchObject({ is_valid: false });
    expect((await graph('me', { access_token: expired })).status).toBe(400);
    expect((await graph('debug_token', { input_token: 'EAAnope', access_token: appToken })).body.data).toMatchObject({ is_valid: false });

    const bare = fb.issueToken({ id: '42' });
    expect((await graph('me', { fields: 'id,email,first_name,last_name', access_token: bare })).body).toEqual({ id: '42' });

    const denied = new URL((await fb.authorize(dialog(undefined, 'st-2'), user, { deny: true })).url).searchParams;
    expect(Object.fromEntries(denied)).toMatchObject({ error: 'access_denied', error_reason: 'user_denied', state: 'st-2' });
    expect(denied.has('code')).toBe(false);
  });
});
