import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { forbidden, invalidField, unauthenticated } from '../../infra/domain-error.js';
import { verifyPassword } from '../../infra/passwords.js';
import { erasedEmailOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { consumeRateLimit, type RateLimit } from '../../infra/rate-limit.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';
import { admitLogin, findUserByEmail, settleLogin, signedInRecently, type AccountsConfig } from '../accounts/index.js';
import { isLoginEmailConfirmed } from '../profile/index.js';

// "Your data": the export of everything held about a person and its erasure, over the parts every
// module contributes (personal-data-parts.ts). The erasure runs in ONE transaction the caller
// opens: every part's refusal is checked first (the last master of a company, open orders), then
// every part removes or anonymises its rows, so either all of it happens or none.

export type GdprConfig = Pick<AccountsConfig, 'accounts' | 'rateLimits'>;

/** Exports per user: each one reads everything held about them. */
export const EXPORTS_PER_USER: RateLimit = { max: 5, windowMs: 3_600_000 };
/** Erasure attempts per user (wrong passwords also count as failed logins). */
export const ERASURES_PER_USER: RateLimit = { max: 10, windowMs: 3_600_000 };

/**
 * The address nothing is kept under, that stands for the login email of a user who has not confirmed
 * it: what the parts keep by email (guest orders billed to it, requests, newsletter rows, gift cards
 * sent to it, events and mails naming it) is the address owner's, not this user's, to export or erase.
 * Which users have not confirmed it, and what confirms it (a link followed from the mailbox does,
 * since dcf8900): modules/profile's index.ts and docs/architecture.md.
 */
export const unconfirmedEmailOf = (userId: number) => `unconfirmed-${userId}@unconfirmed.invalid`;

/**
 * The person behind a user id, with every client account (all stores, any status); undefined when
 * unknown. Its email is the login email only while that is confirmed (unconfirmedEmailOf).
 */
export async function loadSubject(db: Db, userId: number): Promise<PersonalDataSubject | undefined> {
  const user = await db.selectFrom('app_user').select(['id', 'email']).where('id', '=', userId).executeTakeFirst();
  if (!user) return undefined;
  const loginEmailConfirmed = await isLoginEmailConfirmed(db, userId);
  const email = loginEmailConfirmed ? user.email : unconfirmedEmailOf(userId);
  const accounts = await db
    .selectFrom('client_account')
    .select(['id', 'code', 'store_code', 'type', 'company_id', 'role', 'status'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  return {
    userId: Number(user.id),
    email,
    loginEmailConfirmed,
    erasedEmail: erasedEmailOf(Number(user.id)),
    accounts: accounts.map((account) => ({
      id: Number(account.id),
      code: account.code,
      storeCode: account.store_code,
      type: account.type,
      companyId: account.company_id === null ? null : Number(account.company_id),
      role: account.role,
      status: account.status,
    })),
  };
}

/** Everything the parts hold about the subject, one key per part. */
export async function exportPersonalData(db: Db, parts: readonly PersonalDataPart[], subject: PersonalDataSubject, now: number) {
  const data: Record<string, unknown> = { exportedAt: toRfc3339(now) };
  for (const part of parts) data[part.name] = await part.export(db, subject);
  return data;
}

/**
 * Erases the subject in the caller's transaction: the locks of the person's companies and client
 * accounts, every refusal, then every part. Every writer of a client's personal data (checkout,
 * basket, profile, addresses, wishlist, back-in-stock, subscriptions and cards) takes the client
 * account's lock first (modules/client-account-lock):
 * a write that committed before is seen by the refusals and erased, one that waited is refused with a
 * 401 once this commits. Without it a checkout sent at once made an order the open-order refusal had
 * not seen, and kept the person's name and address after the erasure. Answers the subject erased.
 */
export async function eraseSubject(
  trx: Db,
  parts: readonly PersonalDataPart[],
  subject: PersonalDataSubject,
  now: number,
): Promise<PersonalDataSubject> {
  await lockAccountsForErasure(trx, subject.userId);
  // Read again under the locks: a registration or a company's invitation that added an account to the
  // person takes them too (findPersonByEmail), and one waited for here is the person's to erase, with
  // the names an invitation gave it.
  const locked = (await loadSubject(trx, subject.userId)) ?? subject;
  for (const part of parts) await part.refuseErasure?.(trx, locked, now);
  for (const part of parts) await part.erase(trx, locked, now);
  return locked;
}

/**
 * The erasure of a user in the caller's transaction, DELETE /client-account's and `gdpr erase`'s alike:
 * the person's locks first, then `admitted`, what its caller must find under them (DELETE: its
 * session still open; the CLI: the email still the user's), then the subject read under them and
 * erased. Answers the subject erased, or undefined when `admitted` said there was nothing to erase.
 * The person's locks before anything of the caller's, as every writer that ends the person's sessions
 * or writes their user's row takes them (a verification, a password reset or change, a company's
 * removal of an employee): before them, the erasure held its session while it waited for the person's
 * accounts, and such a writer held those and waited to delete it.
 */
async function eraseUser(
  trx: Db,
  parts: readonly PersonalDataPart[],
  userId: number,
  now: number,
  admitted: () => Promise<boolean>,
): Promise<PersonalDataSubject | undefined> {
  await lockAccountsForErasure(trx, userId);
  if (!(await admitted())) return undefined;
  const subject = await loadSubject(trx, userId);
  return subject && eraseSubject(trx, parts, subject, now);
}

export interface ErasureRequest {
  userId: number;
  tokenHash: string;
  password: string | undefined;
  /** The client address, for the login-failure throttle that counts wrong passwords. */
  address: string;
}

/**
 * DELETE /client-account. A user with a password confirms with it (a wrong one is a 422 and
 * counts as a failed login); a user who signs in only through a provider has no password to give,
 * so the token must come from a login of the last 10 minutes (403 otherwise). The password work
 * runs before the transaction opens; the subject is read again inside it.
 */
export async function eraseCaller(
  db: Kysely<Database>,
  config: GdprConfig,
  parts: readonly PersonalDataPart[],
  request: ErasureRequest,
  now: number,
): Promise<void> {
  await consumeRateLimit(db, `gdpr:erase:${request.userId}`, ERASURES_PER_USER, now);
  const user = await db
    .selectFrom('app_user')
    .select(['email', 'password_hash'])
    .where('id', '=', request.userId)
    .executeTakeFirstOrThrow();
  if (user.password_hash !== null) {
    if (request.password === undefined) throw invalidField('password', 'gdpr.passwordRequired');
    const attempt = { email: user.email, address: request.address };
    await admitLogin(db, config.rateLimits, attempt, now);
    const check = await verifyPassword(user.password_hash, request.password, config.accounts.legacyPasswordSalt);
    await settleLogin(db, config.rateLimits, attempt, now, !check.ok);
    if (!check.ok) throw invalidField('password', 'gdpr.wrongPassword');
  } else {
    if (!(await signedInRecently(db, request.tokenHash, now))) throw forbidden('gdpr.freshLoginRequired');
  }
  await db.transaction().execute((trx) =>
    // An erasure ends its caller's session, so of two at once (a double click) the second waits for
    // the first and finds it gone, and erases (and tells the integrations) nothing again. A session
    // another request ended meanwhile (a verification that replaced the password, a logout) is the
    // 401 the token check answers after, and erases nothing.
    eraseUser(trx, parts, request.userId, now, async () => {
      if (await lockSession(trx, request.tokenHash)) return true;
      if (await isErased(trx, request.userId)) return false;
      throw unauthenticated('auth.unauthorized');
    }),
  );
}

/** Whether the user was erased (a double click's first erasure, committed while this one waited). */
async function isErased(trx: Db, userId: number): Promise<boolean> {
  const user = await trx.selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirst();
  return user?.email === erasedEmailOf(userId);
}

/** Locks the caller's access token on PostgreSQL (SQLite's write transactions are serial); false when it is gone. */
async function lockSession(trx: Db, tokenHash: string): Promise<boolean> {
  const row = await lockedOnPostgres(
    trx,
    trx.selectFrom('access_token').select('token_hash').where('token_hash', '=', tokenHash),
  ).executeTakeFirst();
  return row !== undefined;
}

/**
 * `storefront gdpr erase <email>`: the same erasure for an operator, without a confirmation. The email
 * is read again under the person's locks, as a registration reads it (findPersonByEmail): an erasure
 * that committed meanwhile (the person's own, another operator's) has made it no one's, and this one
 * answers as for an unknown email rather than erase, and tell the integrations, again.
 */
export async function eraseByEmail(
  db: Kysely<Database>,
  parts: readonly PersonalDataPart[],
  email: string,
  now: number,
  options: { dryRun?: boolean } = {},
): Promise<PersonalDataSubject | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await findUserByEmail(trx, email);
      if (user === undefined) return undefined;
      const subject = await eraseUser(trx, parts, user.id, now, async () => (await findUserByEmail(trx, email))?.id === user.id);
      if (options.dryRun && subject) throw new RolledBack(subject);
      return subject;
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.subject;
    throw error;
  }
}

/**
 * A dry run (`gdpr erase --dry-run`) is the erasure itself, its refusals included (open orders, a
 * company's last master), rolled back: what it shows is what the real one would do, by the same code.
 * Everything an erasure causes is written in its transaction (integration events, jobs), so nothing leaves it.
 */
class RolledBack {
  constructor(readonly subject: PersonalDataSubject) {}
}
