import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';

/**
 * A stand-in for Facebook Login on 127.0.0.1: the OAuth dialog and the Graph API calls a server makes
 * (oauth/access_token, debug_token, me), answering as Graph API v19 does, errors included.
 * Any `/vNN.N` version prefix (or none) is accepted on the Graph paths.
 */

export interface FacebookUser {
  id: string;
  email?: string;
  first_name?: string;
  last_name?: string;
}

export interface FakeFacebook {
  /** Base for Graph API calls: http://127.0.0.1:PORT/v19.0 */
  graphUrl: string;
  /** The OAuth dialog: http://127.0.0.1:PORT/dialog/oauth */
  dialogUrl: string;
  appId: string;
  appSecret: string;
  /** An access token for the user as the app `appId` (or another app id, to test audience checks). */
  issueToken(user: FacebookUser, options?: { appId?: string; expired?: boolean }): string;
  /** Plays the browser: GET the dialog URL our service built, log in as `user`, return the redirect back. */
  authorize(dialogUrl: string, user: FacebookUser, options?: { deny?: boolean }): Promise<{ method: 'GET'; url: string }>;
  /**
   * Answers the next Graph call to `path` (`/debug_token`, `/me`, `/oauth/access_token`; without the version prefix)
   * with `body` as it is, a JSON content type and `status`, whatever the call asked: valid JSON that is not what
   * Graph answers (`null`, `[]`, `42`, `"x"`), or any other text. Several calls queue, each answers one request.
   */
  answerNextRaw(path: string, body: string, status?: number): void;
  /** Every request, in order. `body` holds the form fields of a POST. */
  requests: Array<{ method: string; path: string; query: Record<string, string>; body?: Record<string, string> }>;
  close(): Promise<void>;
}

interface TokenInfo {
  userId: string;
  appId: string;
  issuedAt: number;
  expiresAt: number;
}

interface CodeInfo {
  clientId: string;
  redirectUri: string;
  codeChallenge?: string;
  userId: string;
  expiresAt: number;
  used: boolean;
}

interface DialogRequest {
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge?: string;
}

const TOKEN_LIFETIME = 5_183_944; // ~60 days, what Facebook gives long-lived user tokens
const CODE_LIFETIME = 600;
const SCOPES = ['email', 'public_profile'];

class GraphError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number,
    readonly subcode?: number,
  ) {
    super(message);
  }
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function random(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!DOCTYPE html><html><head><title>Facebook</title></head><body>${body}</body></html>`);
}

export async function startFakeFacebook(): Promise<FakeFacebook> {
  const appId = String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999));
  const appSecret = randomBytes(16).toString('hex');
  const users = new Map<string, FacebookUser>();
  const tokens = new Map<string, TokenInfo>();
  const codes = new Map<string, CodeInfo>();
  const dialogs = new Map<string, DialogRequest>();
  const requests: FakeFacebook['requests'] = [];
  const rawAnswers = new Map<string, Array<{ body: string; status: number }>>();

  function issueToken(user: FacebookUser, options: { appId?: string; expired?: boolean } = {}): string {
    users.set(user.id, { ...user });
    const token = `EAA${random(48)}`;
    const issuedAt = now() - (options.expired ? TOKEN_LIFETIME + 3600 : 0);
    tokens.set(token, { userId: user.id, appId: options.appId ?? appId, issuedAt, expiresAt: issuedAt + TOKEN_LIFETIME });
    return token;
  }

  /** The token's record when it is known and not expired; a Graph error otherwise. */
  function validUserToken(token: string | undefined): TokenInfo {
    const info = token ? tokens.get(token) : undefined;
    if (!info) throw new GraphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
    if (info.expiresAt <= now()) {
      throw new GraphError(
        400,
        `Error validating access token: Session has expired on ${new Date(info.expiresAt * 1000).toUTCString()}.`,
        190,
        463,
      );
    }
    return info;
  }

  function dialog(params: URLSearchParams, res: ServerResponse): void {
    const clientId = params.get('client_id') ?? '';
    const redirectUri = params.get('redirect_uri') ?? '';
    const responseType = params.get('response_type') ?? 'code';
    const challenge = params.get('code_challenge') ?? undefined;
    const method = params.get('code_challenge_method') ?? (challenge ? 'plain' : undefined);
    let problem: string | undefined;
    if (clientId !== appId) problem = 'Invalid App ID: The provided app ID does not look like a valid app ID.';
    else if (!URL.canParse(redirectUri) || !/^https?:$/.test(new URL(redirectUri).protocol)) problem = 'Invalid redirect_uri.';
    else if (responseType !== 'code') problem = `Unsupported response_type ${responseType} (this fake does codes only).`;
    else if (challenge !== undefined && method !== 'S256') problem = 'Unsupported code_challenge_method (this fake does S256 only).';
    if (problem) {
      html(res, 400, `<p id="error">${escapeHtml(problem)}</p>`);
      return;
    }
    const requestId = random(16);
    dialogs.set(requestId, { clientId, redirectUri, state: params.get('state') ?? undefined, codeChallenge: challenge });
    const hidden = `<input type="hidden" name="request_id" value="${requestId}">`;
    html(
      res,
      200,
      `<form id="login" method="post" action="/dialog/oauth/confirm">${hidden}<input type="hidden" name="decision" value="allow">` +
        `<input name="user" value=""><button>Continue</button></form>` +
        `<form id="cancel" method="post" action="/dialog/oauth/confirm">${hidden}<input type="hidden" name="decision" value="deny">` +
        `<button>Cancel</button></form>`,
    );
  }

  function confirm(form: URLSearchParams, res: ServerResponse): void {
    const requestId = form.get('request_id') ?? '';
    const pending = dialogs.get(requestId);
    if (!pending) {
      html(res, 400, '<p id="error">This login request is unknown or was already used.</p>');
      return;
    }
    dialogs.delete(requestId);
    const back = new URL(pending.redirectUri);
    if (form.get('decision') === 'deny') {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_code', '200');
      back.searchParams.set('error_description', 'Permissions error');
      back.searchParams.set('error_reason', 'user_denied');
    } else {
      const user = JSON.parse(form.get('user') ?? 'null') as FacebookUser | null;
      if (!user || typeof user.id !== 'string') {
        html(res, 400, '<p id="error">No user to log in as.</p>');
        return;
      }
      users.set(user.id, { ...user });
      const code = `AQ${random(96)}`;
      codes.set(code, {
        clientId: pending.clientId,
        redirectUri: pending.redirectUri,
        codeChallenge: pending.codeChallenge,
        userId: user.id,
        expiresAt: now() + CODE_LIFETIME,
        used: false,
      });
      back.searchParams.set('code', code);
    }
    if (pending.state !== undefined) back.searchParams.set('state', pending.state);
    // Facebook appends `#_=_` to this redirect; a browser does not send the fragment back, so it is left out.
    res.writeHead(302, { location: back.href, 'content-length': '0' });
    res.end();
  }

  function accessToken(params: URLSearchParams): unknown {
    const bad = (message: string) => new GraphError(400, message, 100);
    if (params.get('client_id') !== appId) throw new GraphError(400, 'Error validating application. Invalid application ID.', 101);
    if (!safeEqual(params.get('client_secret') ?? '', appSecret)) throw bad('Error validating client secret.');
    const code = params.get('code') ?? '';
    const info = codes.get(code);
    if (!info || info.expiresAt <= now()) throw bad('Invalid verification code format.');
    if (info.used) throw bad('This authorization code has been used.');
    if (info.clientId !== appId) throw bad('Invalid verification code format.');
    if (params.get('redirect_uri') !== info.redirectUri) {
      throw bad(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      );
    }
    if (info.codeChallenge !== undefined) {
      const verifier = params.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!verifier || !safeEqual(challenge, info.codeChallenge)) throw bad('Invalid code verifier.');
    }
    info.used = true;
    const user = users.get(info.userId);
    if (!user) throw bad('Invalid verification code format.');
    return { access_token: issueToken(user), token_type: 'bearer', expires_in: TOKEN_LIFETIME };
  }

  function debugToken(params: URLSearchParams): unknown {
    const appToken = params.get('access_token') ?? '';
    if (!safeEqual(appToken, `${appId}|${appSecret}`)) {
      throw new GraphError(400, 'Invalid OAuth access token signature.', 190);
    }
    const input = params.get('input_token');
    if (!input) throw new GraphError(400, '(#100) The parameter input_token is required', 100);
    const info = tokens.get(input);
    if (!info) {
      return { data: { error: { code: 190, message: 'Invalid OAuth access token.' }, is_valid: false, scopes: [] } };
    }
    const valid = info.expiresAt > now();
    return {
      data: {
        app_id: info.appId,
        type: 'USER',
        application: 'Test App',
        data_access_expires_at: info.issuedAt + 90 * 86_400,
        expires_at: info.expiresAt,
        is_valid: valid,
        issued_at: info.issuedAt,
        scopes: SCOPES,
        user_id: info.userId,
        ...(valid
          ? {}
          : {
              error: {
                code: 190,
                message: `Error validating access token: Session has expired on ${new Date(info.expiresAt * 1000).toUTCString()}.`,
                subcode: 463,
              },
            }),
      },
    };
  }

  function me(params: URLSearchParams, req: IncomingMessage): unknown {
    const bearer = /^(?:Bearer|OAuth) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = params.get('access_token') ?? bearer;
    const info = validUserToken(token);
    const proof = params.get('appsecret_proof');
    if (proof !== null) {
      const tokenApp = info.appId === appId ? appSecret : undefined;
      const expected = tokenApp && token ? createHmac('sha256', tokenApp).update(token).digest('hex') : '';
      if (!safeEqual(proof, expected)) throw new GraphError(400, 'Invalid appsecret_proof provided in the API argument', 100);
    }
    const user = users.get(info.userId);
    if (!user) throw new GraphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
    const fields = (params.get('fields') ?? 'id,name')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
    const available: Record<string, string | undefined> = { ...user, name: name || undefined };
    const out: Record<string, string> = { id: user.id };
    for (const field of fields) {
      const value = available[field];
      if (value !== undefined) out[field] = value;
    }
    return out;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const form = method === 'POST' ? new URLSearchParams(isForm ? await readBody(req) : '') : undefined;
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(form ? { body: Object.fromEntries(form) } : {}),
    });

    if (url.pathname === '/dialog/oauth' && method === 'GET') return dialog(url.searchParams, res);
    if (url.pathname === '/dialog/oauth/confirm' && method === 'POST' && form) return confirm(form, res);

    const graphPath = /^(?:\/v\d+\.\d+)?(\/.*)$/.exec(url.pathname)?.[1];
    // Graph API takes parameters from the query string and, for POST, the form body.
    const params = new URLSearchParams(url.searchParams);
    for (const [key, value] of form ?? []) params.set(key, value);
    const raw = graphPath === undefined ? undefined : rawAnswers.get(graphPath)?.shift();
    if (raw) {
      res.writeHead(raw.status, { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'no-store' });
      res.end(raw.body);
      return;
    }
    try {
      if (graphPath === '/oauth/access_token' && (method === 'GET' || method === 'POST')) return json(res, 200, accessToken(params));
      if (graphPath === '/debug_token' && method === 'GET') return json(res, 200, debugToken(params));
      if (graphPath === '/me' && method === 'GET') return json(res, 200, me(params, req));
      throw new GraphError(400, `Unknown path components: ${url.pathname}`, 2500);
    } catch (error) {
      if (!(error instanceof GraphError)) throw error;
      json(res, error.status, {
        error: {
          message: error.message,
          type: 'OAuthException',
          code: error.code,
          ...(error.subcode !== undefined ? { error_subcode: error.subcode } : {}),
          fbtrace_id: random(8),
        },
      });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      json(res, 500, { error: { message: String(error), type: 'OAuthException', code: 1 } });
    });
  });
  const port = await listenOnLoopback(server);
  const origin = `http://127.0.0.1:${port}`;

  async function authorize(dialogUrl: string, user: FacebookUser, options: { deny?: boolean } = {}) {
    if (new URL(dialogUrl).origin !== origin) throw new Error(`authorize: ${dialogUrl} is not on ${origin}`);
    const page = await fetch(dialogUrl, { redirect: 'manual' });
    const text = await page.text();
    if (page.status !== 200) {
      const error = /id="error">([^<]*)</.exec(text)?.[1] ?? text.slice(0, 200);
      throw new Error(`authorize: the dialog answered ${page.status}: ${error}`);
    }
    const requestId = /name="request_id" value="([^"]*)"/.exec(text)?.[1];
    if (!requestId) throw new Error('authorize: no login form on the dialog page');
    const body = new URLSearchParams({ request_id: requestId, decision: options.deny ? 'deny' : 'allow' });
    if (!options.deny) body.set('user', JSON.stringify(user));
    const answer = await fetch(new URL('/dialog/oauth/confirm', origin), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location) {
      throw new Error(`authorize: the dialog answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
    }
    await answer.body?.cancel();
    return { method: 'GET' as const, url: location };
  }

  return {
    graphUrl: `${origin}/v19.0`,
    dialogUrl: `${origin}/dialog/oauth`,
    appId,
    appSecret,
    issueToken,
    authorize,
    answerNextRaw(path, body, status = 200) {
      const queue = rawAnswers.get(path) ?? [];
      queue.push({ body, status });
      rawAnswers.set(path, queue);
    },
    requests,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
