import { hashToken } from '../../infra/tokens.js';

// The web redirect flow is bound to the browser that started it: starting it sets an HttpOnly
// cookie with a random nonce, the flow keeps the nonce's hash, and the provider's callback is
// taken only with that cookie. A callback URL an attacker got for his own flow (login CSRF) or for
// a link to his account (identity theft) does nothing in another browser.
//
// SameSite=Lax: the cookie is sent on the top-level GET back from Google and Facebook, not on
// Apple's cross-site form POST, which is why that POST is answered with a 303 back to a GET.

/** Ten minutes, as long as the flow's transaction lives. */
const MAX_AGE_SECONDS = 600;

/** One cookie per flow (named after its state), so flows started in two tabs do not undo each other. */
export function flowCookieName(state: string): string {
  return `sf_social_${hashToken(`flow-cookie:${state}`).slice(0, 16)}`;
}

export interface FlowCookieScope {
  /** The path of the callback as the browser sees it (PUBLIC_URL's path and the API's base path). */
  path: string;
  /** Whether PUBLIC_URL is https. */
  secure: boolean;
}

/** The Set-Cookie value that starts a flow; `value` is the nonce, never stored in the clear. */
export function setFlowCookie(name: string, value: string, scope: FlowCookieScope): string {
  return serialize(name, value, scope, MAX_AGE_SECONDS);
}

/** The Set-Cookie value that removes a flow's cookie once its callback was taken. */
export function clearFlowCookie(name: string, scope: FlowCookieScope): string {
  return serialize(name, '', scope, 0);
}

function serialize(name: string, value: string, scope: FlowCookieScope, maxAge: number): string {
  const secure = scope.secure ? '; Secure' : '';
  return `${name}=${value}; Path=${scope.path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** The value of one cookie of a Cookie header; undefined when it is not there. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}
