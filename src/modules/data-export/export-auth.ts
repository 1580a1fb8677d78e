import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { addressKey } from '../../infra/address-key.js';
import { forbidden } from '../../infra/domain-error.js';
import { verifyPassword } from '../../infra/passwords.js';
import { checkRateLimit, consumeRateLimit, countedHits, countHit, rateLimited, refundHit } from '../../infra/rate-limit.js';
import { createAllowlist, type Allowlist } from './cidr.js';
import type { ExportSettings } from './data-export.config.js';
import { findExportUser, type ExportUserRow } from './export-user.repository.js';
import { EXPORT_USER_NAME } from './export-user.service.js';

/** Missing or wrong credentials: the routes answer 401 with a Basic challenge (WWW-Authenticate). */
export class ExportCredentialsError extends Error {
  constructor() {
    super('no or wrong export credentials');
    this.name = 'ExportCredentialsError';
  }
}

export interface ExportUser {
  id: number;
  name: string;
}

/** What a request shows to be authenticated: its Authorization header and address, and its time. */
export interface ExportCredentialsInput {
  authorization: string | undefined;
  ip: string;
  now: number;
}

export interface ExportAuthOptions {
  /** How long a verified name and password are trusted without the argon2 check. */
  verifiedTtlMs: number;
  maxVerified: number;
}

const DEFAULTS: ExportAuthOptions = { verifiedTtlMs: 5 * 60_000, maxVerified: 1000 };

/** `Authorization: Basic base64(name:password)`, or undefined when absent or malformed. */
export function basicCredentials(header: string | undefined): { name: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** What the data-export routes authenticate and count requests with (createExportAuth). */
export interface ExportAuth {
  /** The export user the request authenticates as; 429 when that user is already past its limit, without counting the request. */
  authenticate(input: ExportCredentialsInput): Promise<ExportUser>;
  /**
   * Counts a request of the user against its limit, in one atomic upsert, and throws the 429 past it
   * (counted all the same, as consumeRateLimit does): requests sent at once can never all pass.
   */
  countRequest(user: ExportUser, now: number): Promise<void>;
  /** Counts a request already answered (a 400, say) without refusing it: every request of a user counts once. */
  countAnswered(user: ExportUser, now: number): Promise<void>;
}

/**
 * HTTP Basic authentication of export users (the data-export routes run it before each request).
 *
 * - An address outside the named user's allowlist: 403, whatever the password (it is not checked there).
 * - Missing or wrong credentials: ExportCredentialsError (401 with WWW-Authenticate). A disabled user: 403 (only after
 *   the password is right, so strangers learn nothing).
 * - The argon2id check costs tens of milliseconds, too much for every page of a crawl: a verified
 *   (user, stored hash, password) is remembered for a few minutes, under an HMAC with a key that
 *   lives only in this process. The user row is still read on every request, so disabling,
 *   removing or rotating takes effect at once (a rotated hash no longer matches the remembered one).
 * - Each user has a request rate limit; failed checks from one address are limited too (counted
 *   before the check, see passwordMatches; a refusal outside an allowlist counts as one), and past
 *   that limit the address gets 429 without one.
 * - The user's limit is looked at here (a user already past it gets 429 at once) but counted by the
 *   caller (countRequest), once per request and before the request reads anything: the routes count
 *   a read once its cut is decided, so that a replica need not replay the count's own write first.
 */
export function createExportAuth(db: Kysely<Database>, config: ExportSettings, options: ExportAuthOptions = DEFAULTS): ExportAuth {
  const key = randomBytes(32);
  const verified = new Map<string, number>();
  const allowlists = new Map<string, Allowlist>();

  const fingerprint = (id: number, hash: string, password: string) =>
    createHmac('sha256', key).update(`${id}\u0000${hash}\u0000${password}`).digest('base64url');

  const allowlistOf = (json: string): Allowlist => {
    let list = allowlists.get(json);
    if (list === undefined) {
      const parsed: unknown = JSON.parse(json);
      list = createAllowlist(Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : []);
      if (allowlists.size >= 100) allowlists.clear();
      allowlists.set(json, list);
    }
    return list;
  };

  // By addressKey, as every per-address limit: an IPv6 client takes a new address from its /64 at will.
  const failureKey = (ip: string) => `export:fail:${addressKey(ip)}`;

  /**
   * Counts a failed attempt of the address, in one atomic upsert; past the limit the attempt is a 429
   * and not counted (the window's count stays at the limit, so the address is let in when it ends).
   */
  const countFailure = async (ip: string, now: number): Promise<void> => {
    const limit = config.authFailuresPerIp;
    const key = failureKey(ip);
    if ((await countHit(db, key, limit, now)) > limit.max) {
      await refundHit(db, key, limit, now);
      throw rateLimited((await countedHits(db, key, limit, now)).secondsLeft);
    }
  };

  /**
   * Whether the password is the user's: remembered, or checked with argon2 (also for an unknown user,
   * for timing). A check is counted as a failure before it runs, in one atomic upsert, and a right
   * password takes its count back: looked at first and counted after the check, guesses sent at once
   * all found the count below the limit, and every one of them was checked (the right one let in).
   * Past the limit the address gets 429 without a check, and the refused attempt is not counted.
   */
  const passwordMatches = async (user: ExportUserRow | undefined, password: string, ip: string, now: number): Promise<boolean> => {
    const print = user === undefined ? undefined : fingerprint(user.id, user.password_hash, password);
    const remembered = print === undefined ? undefined : verified.get(print);
    if (remembered !== undefined && remembered > now) return true;
    await countFailure(ip, now);
    const check = await verifyPassword(user?.password_hash ?? null, password, undefined);
    if (!check.ok || print === undefined) return false;
    await refundHit(db, failureKey(ip), config.authFailuresPerIp, now);
    verified.delete(print);
    verified.set(print, now + options.verifiedTtlMs);
    while (verified.size > options.maxVerified) verified.delete(verified.keys().next().value!);
    return true;
  };

  const userKey = (user: ExportUser) => `export:user:${user.id}`;

  const authenticate = async ({ authorization, ip, now }: ExportCredentialsInput): Promise<ExportUser> => {
    const credentials = basicCredentials(authorization);
    if (credentials === undefined) throw new ExportCredentialsError();
    // A name no export user can have is not looked up (one with a NUL character failed the query on
    // PostgreSQL, a 500); its password is still checked, for the same timing as an unknown user's.
    const user = EXPORT_USER_NAME.test(credentials.name) ? await findExportUser(db, credentials.name) : undefined;
    // The allowlist before the password: outside it the answer is the same whatever the password, and
    // no password is checked. Checked after it, a right password was a 403 and a wrong one a 401, so
    // anyone anywhere could test guesses (or a leaked password) that only the allowlist should admit.
    // The refusal is counted as a failed check is: an address outside could otherwise send them without end.
    if (user !== undefined && !allowlistOf(user.allowed_cidrs).allows(ip)) {
      await countFailure(ip, now);
      throw forbidden('dataExport.ipNotAllowed', { ip });
    }
    if (!(await passwordMatches(user, credentials.password, ip, now)) || user === undefined) throw new ExportCredentialsError();
    if (user.disabled_at !== null) throw forbidden('dataExport.disabled');
    const exportUser = { id: user.id, name: user.name };
    await checkRateLimit(db, userKey(exportUser), config.rateLimitPerUser, now);
    return exportUser;
  };

  return {
    authenticate,
    countRequest: (user, now) => consumeRateLimit(db, userKey(user), config.rateLimitPerUser, now),
    countAnswered: async (user, now) => void (await countHit(db, userKey(user), config.rateLimitPerUser, now)),
  };
}
