import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { base64url, exportJWK, exportPKCS8, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';
import { listenOnLoopback } from './loopback.js';

/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1, to play Google and Apple in tests.
 *
 * - Authorization code flow only (response_type=code), PKCE S256 (optional for the confidential client, checked when
 *   sent), nonce, response_mode query or form_post, scopes `openid email profile`.
 * - The ID token itself carries email / email_verified / given_name / family_name (`conformIdTokenClaims: false`).
 * - Interactions are our own minimal pages (not devInteractions, which prints warnings): a sign-in form (any registered
 *   `sub`), then a consent form; `prompt=select_account` is accepted (Google's services send it) and resolved by the
 *   sign-in form.
 * - Client authentication at the token endpoint: client_secret_basic or client_secret_post with `clientSecret`.
 *   With `appleStyle: true` the token endpoint ALSO accepts, as Apple's does, a `client_secret` that is an ES256 JWT
 *   (header kid = apple.keyId; iss = apple.teamId; sub = clientId; aud = https://appleid.apple.com or the issuer; iat and
 *   exp, at most 6 months apart) signed with `apple.privateKeyPem`, the stand-in for the developer's .p8 key.
 *   oidc-provider has no client authentication method for that: a `none` client would make it reject any request that
 *   carries a client_secret ("the provided authentication mechanism does not match"), so the client stays
 *   client_secret_basic and its (per-provider) Client model's secret comparison is wrapped to also accept the JWT.
 *   Give the service only the Apple key material (not clientSecret) to prove it signs its secret.
 *   appleStyle also registers the scope `name` (given_name, family_name), as Apple's authorization requests use
 *   `scope=name email` (with response_mode=form_post).
 */

export interface IdpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

export interface AppleKeyMaterial {
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM of an ES256 (P-256) private key, like the .p8 file Apple hands out. */
  privateKeyPem: string;
}

export interface TestIdp {
  /** http://127.0.0.1:PORT, no trailing slash. */
  issuer: string;
  jwksUri: string;
  /** A confidential client registered with the redirect URIs given to startTestIdp. */
  clientId: string;
  clientSecret: string;
  /** Only with `appleStyle: true`: the key the service signs its client_secret JWT with. */
  apple?: AppleKeyMaterial;
  /** Registers (or replaces) an account the interactive login can log in as. */
  addAccount(account: IdpAccount): void;
  /**
   * Plays the browser in the authorization code flow: GETs `authorizationUrl`, signs in as `sub` on the interaction
   * pages, grants consent (or denies it with `deny: true`), and returns the request the browser would make back to the
   * redirect URI: a GET for response_mode=query, a urlencoded POST for response_mode=form_post.
   */
  authorize(
    authorizationUrl: string,
    sub: string,
    options?: { deny?: boolean },
  ): Promise<{ method: 'GET' | 'POST'; url: string; body?: string; contentType?: string }>;
  /**
   * Mints an ID token as issued to a native app: RS256 with the provider's signing key (same kid as in the JWKS).
   * Defaults iss = issuer, aud = clientId, iat = now, exp = now + 600; `claims` override them.
   * `alg: 'none'` gives an unsigned token; `foreignKey: true` signs with a key that is not in the JWKS (same kid).
   */
  idToken(claims: Record<string, unknown> & { sub: string }, options?: { alg?: 'none'; foreignKey?: boolean }): Promise<string>;
  /**
   * Answers the next request to `path` (`/token`, `/jwks`, `/.well-known/openid-configuration`) with `body` as it is,
   * a JSON content type and `status`, instead of the provider: valid JSON that is not what the endpoint answers
   * (`null`, `[]`, `42`, `"x"`), or any other text. Several calls queue, each answers one request.
   */
  answerNextRaw(path: string, body: string, status?: number): void;
  close(): Promise<void>;
}

export interface TestIdpOptions {
  redirectUris: string[];
  /** The response modes the client may use; any of query and form_post when left out. */
  responseModes?: ('query' | 'form_post')[];
  /** The scopes the client may request; `openid email profile` (plus `name` with appleStyle) when left out. */
  scopes?: string[];
  /** Accept an Apple-style ES256 JWT as client_secret (see the comment at the top of this file). */
  appleStyle?: boolean;
}

// ---- The few parts of oidc-provider we use (the package ships no type declarations). ----

interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown> & { client_id: string };
  session?: { accountId: string };
  grantId?: string;
}

interface OidcGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: { new (init: { accountId: string; clientId: string }): OidcGrant; find(id: string): Promise<OidcGrant | undefined> };
  Client: { prototype: { compareClientSecret(this: { clientId: string }, actual: string): boolean | Promise<boolean> } };
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

interface OidcProviderModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
  interactionPolicy: {
    base(): unknown[];
    Prompt: new (options: { name: string; requestable: boolean }) => unknown;
  };
}

interface KoaContext {
  type: string;
  body: unknown;
}

let providerModule: Promise<OidcProviderModule> | undefined;

/** Imports oidc-provider once, without its console notice that Node 20 is not a supported runtime. */
function loadOidcProvider(): Promise<OidcProviderModule> {
  providerModule ??= (async () => {
    const { warn, info } = console;
    const quiet =
      (log: (...args: unknown[]) => void) =>
      (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')) return;
        log(...args);
      };
    console.warn = quiet(warn);
    console.info = quiet(info);
    try {
      // A non-literal specifier: the package has no types, we type the parts we use above.
      const specifier: string = 'oidc-provider';
      return (await import(specifier)) as OidcProviderModule;
    } finally {
      console.warn = warn;
      console.info = info;
    }
  })();
  return providerModule;
}

// ---- A small in-memory adapter (the built-in one prints a warning). ----

interface StoredPayload extends Record<string, unknown> {
  uid?: string;
  userCode?: string;
  grantId?: string;
}

function memoryAdapterFactory() {
  const store = new Map<string, { payload: StoredPayload; expiresAt: number }>();
  const get = (key: string): StoredPayload | undefined => {
    const entry = store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  const findBy = (model: string, field: 'uid' | 'userCode', value: string) => {
    for (const [key] of store) {
      if (!key.startsWith(`${model}:`)) continue;
      const payload = get(key);
      if (payload?.[field] === value) return payload;
    }
    return undefined;
  };

  return (model: string) => ({
    async upsert(id: string, payload: StoredPayload, expiresIn?: number) {
      const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
      store.set(`${model}:${id}`, { payload, expiresAt });
    },
    async find(id: string) {
      return get(`${model}:${id}`);
    },
    async findByUid(uid: string) {
      return findBy(model, 'uid', uid);
    },
    async findByUserCode(userCode: string) {
      return findBy(model, 'userCode', userCode);
    },
    async consume(id: string) {
      const payload = get(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id: string) {
      store.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId: string) {
      for (const [key, entry] of store) {
        if (entry.payload.grantId === grantId) store.delete(key);
      }
    },
  });
}

// ---- Helpers ----

const APPLE_AUDIENCE = 'https://appleid.apple.com';
const SIX_MONTHS = 15_777_000;

function randomId(bytes = 16): string {
  return base64url.encode(randomBytes(bytes));
}

function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!DOCTYPE html><html><head><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`);
}

/** Forms of a page, by id: their action and hidden inputs. */
function parseForms(html: string): Map<string, { method: string; action: string; inputs: [string, string][] }> {
  const forms = new Map<string, { method: string; action: string; inputs: [string, string][] }>();
  let index = 0;
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attrs = match[1] ?? '';
    const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];
    const inputs: [string, string][] = [];
    for (const input of (match[2] ?? '').matchAll(/<input\b([^>]*)>/g)) {
      const name = /\bname="([^"]*)"/.exec(input[1] ?? '')?.[1];
      const value = /\bvalue="([^"]*)"/.exec(input[1] ?? '')?.[1] ?? '';
      if (name !== undefined) inputs.push([unescapeHtml(name), unescapeHtml(value)]);
    }
    forms.set(attr('id') ?? `form${index}`, {
      method: (attr('method') ?? 'get').toUpperCase(),
      action: unescapeHtml(attr('action') ?? ''),
      inputs,
    });
    index += 1;
  }
  return forms;
}

/** A cookie jar for a single origin, enough for oidc-provider's session and interaction cookies. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = '', v = ''] = a.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(a.trim().slice(8)) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

// ---- The provider ----

export async function startTestIdp(options: TestIdpOptions): Promise<TestIdp> {
  const { default: Provider, interactionPolicy } = await loadOidcProvider();

  const server = createServer();
  const port = await listenOnLoopback(server);
  const issuer = `http://127.0.0.1:${port}`;

  const accounts = new Map<string, IdpAccount>();
  const clientId = `test-client-${randomId(6)}`;
  const clientSecret = randomId(32);

  const kid = randomId(8);
  const signing = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(signing.privateKey)), kid, alg: 'RS256', use: 'sig' };
  let foreignKey: CryptoKey | undefined;

  let apple: AppleKeyMaterial | undefined;
  let applePublicKey: CryptoKey | undefined;
  if (options.appleStyle) {
    const pair = await generateKeyPair('ES256', { extractable: true });
    applePublicKey = pair.publicKey;
    apple = {
      teamId: randomBytes(5).toString('hex').toUpperCase(),
      keyId: randomBytes(5).toString('hex').toUpperCase(),
      privateKeyPem: await exportPKCS8(pair.privateKey),
    };
  }

  const scopes = options.scopes ?? ['openid', 'email', 'profile', ...(options.appleStyle ? ['name'] : [])];
  const claims: Record<string, string[] | null> = {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['given_name', 'family_name'],
    ...(options.appleStyle ? { name: ['given_name', 'family_name'] } : {}),
  };

  // Prompt `select_account` (sent by Google clients): requestable, resolved by the sign-in page.
  const policy = interactionPolicy.base();
  policy.unshift(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }));

  const provider = new Provider(issuer, {
    adapter: memoryAdapterFactory(),
    jwks: { keys: [signingJwk] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        // client_secret_post is accepted as well: oidc-provider treats basic and post alike.
        token_endpoint_auth_method: 'client_secret_basic',
        scope: scopes.join(' '),
        ...(options.responseModes ? { response_modes: options.responseModes } : {}),
      },
    ],
    scopes,
    claims,
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      policy,
    },
    cookies: { keys: [randomId(32)] },
    ttl: { AccessToken: 3600, AuthorizationCode: 600, IdToken: 3600, Interaction: 3600, Session: 86_400, Grant: 86_400 },
    clientBasedCORS: () => false,
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account }) };
    },
    async renderError(ctx: KoaContext, out: Record<string, unknown>) {
      ctx.type = 'html';
      ctx.body = `<!DOCTYPE html><html><head><title>oops</title></head><body><h1 id="error">${escapeHtml(
        out.error,
      )}</h1><p id="error_description">${escapeHtml(out.error_description ?? '')}</p></body></html>`;
    },
  });
  // Unexpected errors would otherwise go to Koa's console logger; keep them for authorize()'s error messages.
  const serverErrors: unknown[] = [];
  provider.on('server_error', (_ctx, error) => serverErrors.push(error));
  provider.on('error', (error) => serverErrors.push(error));

  if (apple && applePublicKey) {
    const material = apple;
    const publicKey = applePublicKey;
    const prototype = provider.Client.prototype;
    const compare = prototype.compareClientSecret;
    if (typeof compare !== 'function') throw new Error('oidc-provider: Client#compareClientSecret is gone; update the Apple-style client');
    prototype.compareClientSecret = async function compareAppleClientSecret(this: { clientId: string }, actual: string) {
      if (await compare.call(this, actual)) return true;
      try {
        const { payload, protectedHeader } = await jwtVerify(actual, publicKey, {
          algorithms: ['ES256'],
          issuer: material.teamId,
          subject: this.clientId,
          audience: [APPLE_AUDIENCE, issuer],
          requiredClaims: ['iat', 'exp'],
        });
        return protectedHeader.kid === material.keyId && (payload.exp ?? 0) - (payload.iat ?? 0) <= SIX_MONTHS;
      } catch {
        return false;
      }
    };
  }

  const providerCallback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    const base = `/interaction/${encodeURIComponent(uid)}`;
    const signIn = details.prompt.name === 'login' || details.prompt.name === 'select_account';

    if (req.method === 'GET' && action === undefined) {
      const abort = `<form id="abort" method="post" action="${base}/abort"><button>Cancel</button></form>`;
      if (signIn) {
        page(
          res,
          200,
          'Sign in',
          `<form id="login" method="post" action="${base}/login"><input name="login" value=""><button>Sign in</button></form>${abort}`,
        );
      } else if (details.prompt.name === 'consent') {
        page(
          res,
          200,
          'Authorize',
          `<p>${escapeHtml(details.params.client_id)} asks for ${escapeHtml(details.params.scope ?? '')}</p>` +
            `<form id="consent" method="post" action="${base}/confirm"><button>Allow</button></form>${abort}`,
        );
      } else {
        page(res, 501, 'Not implemented', `<p>prompt ${escapeHtml(details.prompt.name)} is not implemented</p>`);
      }
      return;
    }
    if (req.method !== 'POST') {
      page(res, 405, 'Method not allowed', '');
      return;
    }

    const form = await readForm(req);
    if (action === 'abort') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User aborted interaction' },
        { mergeWithLastSubmission: false },
      );
    } else if (action === 'login' && signIn) {
      const sub = form.get('login') ?? '';
      if (!accounts.has(sub)) {
        page(res, 400, 'Sign in', `<p id="error">unknown account ${escapeHtml(sub)}</p>`);
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub }, ...(details.prompt.name === 'select_account' ? { select_account: {} } : {}) },
        { mergeWithLastSubmission: false },
      );
    } else if (action === 'confirm' && details.prompt.name === 'consent') {
      const { session, grantId, params } = details;
      if (!session) throw new Error('consent without a session');
      const grant =
        (grantId ? await provider.Grant.find(grantId) : undefined) ??
        new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scope] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scope.join(' '));
      }
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } else {
      page(res, 400, 'Bad request', `<p id="error">unexpected ${escapeHtml(action)} for prompt ${escapeHtml(details.prompt.name)}</p>`);
    }
  }

  const rawAnswers = new Map<string, Array<{ body: string; status: number }>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    const raw = rawAnswers.get(path)?.shift();
    if (raw) {
      res.writeHead(raw.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(raw.body);
      return;
    }
    const match = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/.exec(path);
    if (!match?.[1]) {
      providerCallback(req, res);
      return;
    }
    interaction(req, res, decodeURIComponent(match[1]), match[2]).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      page(res, 400, 'Interaction failed', `<p id="error">${escapeHtml(error instanceof Error ? error.message : error)}</p>`);
    });
  });

  async function authorize(authorizationUrl: string, sub: string, authorizeOptions: { deny?: boolean } = {}) {
    const jar = new CookieJar();
    const origin = new URL(issuer).origin;
    let request: { method: 'GET' | 'POST'; url: string; body?: string } = { method: 'GET', url: authorizationUrl };
    if (new URL(authorizationUrl).origin !== origin) throw new Error(`authorize: ${authorizationUrl} is not on ${issuer}`);

    for (let hop = 0; hop < 20; hop += 1) {
      const response = await fetch(request.url, {
        method: request.method,
        redirect: 'manual',
        headers: {
          cookie: jar.header(),
          ...(request.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: request.body,
      });
      jar.store(response);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        const next = new URL(location, request.url);
        await response.body?.cancel();
        // Leaving the provider: this is the redirect back to the client.
        if (next.origin !== origin) return { method: 'GET' as const, url: next.href };
        request = { method: 'GET', url: next.href };
        continue;
      }

      const text = await response.text();
      const forms = parseForms(text);

      // response_mode=form_post: a self-submitting form back to the client (status 400 when it carries an error).
      const [first] = forms.values();
      if (forms.size === 1 && first && first.method === 'POST' && new URL(first.action, request.url).origin !== origin) {
        return {
          method: 'POST' as const,
          url: new URL(first.action, request.url).href,
          body: new URLSearchParams(first.inputs).toString(),
          contentType: 'application/x-www-form-urlencoded',
        };
      }

      const error = /<[^>]*id="error"[^>]*>([\s\S]*?)</.exec(text)?.[1];
      const description = /<[^>]*id="error_description"[^>]*>([\s\S]*?)</.exec(text)?.[1];
      if (response.status !== 200 || error !== undefined) {
        const detail = [error, description]
          .filter(Boolean)
          .map((s) => unescapeHtml(s ?? ''))
          .join(': ');
        const logged = serverErrors.length ? ` (server errors: ${serverErrors.map(String).join('; ')})` : '';
        throw new Error(`authorize: ${request.method} ${request.url} answered ${response.status} ${detail || text.slice(0, 200)}${logged}`);
      }

      const login = forms.get('login');
      const consent = forms.get('consent');
      const abort = forms.get('abort');
      if (login) {
        request = { method: 'POST', url: new URL(login.action, request.url).href, body: new URLSearchParams({ login: sub }).toString() };
      } else if (consent && abort) {
        const chosen = authorizeOptions.deny ? abort : consent;
        request = { method: 'POST', url: new URL(chosen.action, request.url).href, body: '' };
      } else {
        throw new Error(`authorize: unexpected page at ${request.url}: ${text.slice(0, 200)}`);
      }
    }
    throw new Error('authorize: too many redirects');
  }

  async function idToken(
    claims: Record<string, unknown> & { sub: string },
    tokenOptions: { alg?: 'none'; foreignKey?: boolean } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload = { iss: issuer, aud: clientId, iat: now, exp: now + 600, ...claims };
    if (tokenOptions.alg === 'none') {
      const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
      return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
    }
    let key: CryptoKey = signing.privateKey;
    if (tokenOptions.foreignKey) {
      foreignKey ??= (await generateKeyPair('RS256')).privateKey;
      key = foreignKey;
    }
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
  }

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    clientId,
    clientSecret,
    ...(apple ? { apple } : {}),
    addAccount(account) {
      accounts.set(account.sub, { ...account });
    },
    authorize,
    idToken,
    answerNextRaw(path, body, status = 200) {
      const queue = rawAnswers.get(path) ?? [];
      queue.push({ body, status });
      rawAnswers.set(path, queue);
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
