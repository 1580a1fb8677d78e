import type { Db } from '../../db/database.js';
import type { AccountType } from '../../db/schema.js';
import { DomainError, invalidField, unauthenticated } from '../../infra/domain-error.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { hashPassword, verifyPassword } from '../../infra/passwords.js';
import { newToken } from '../../infra/tokens.js';
import type { Language } from '../../i18n/index.js';
import { loginBasket, type BasketWire } from '../basket/index.js';
import { lockAccountsForErasure, lockLiveClientAccount } from '../client-account-lock/index.js';
import { getStore, isStoreCode, STORE_CODES, type StoreCode } from '../store/index.js';
import type { AccountsConfig } from './accounts.config.js';
import {
  accountsOfUser,
  ensureClientAccount,
  findUserByEmail,
  findUserById,
  insertAccessToken,
  isLiveAccount,
  lockUser,
  revokeToken,
  tokenSession,
  tokenSignedInAt,
  updateUser,
  type ClientAccountRow,
  type UserRow,
} from './accounts.repository.js';
import { ACCOUNT_TYPES, type LoginForm } from './accounts.schemas.js';

type SessionConfig = Pick<AccountsConfig, 'accounts'>;

/**
 * What a login needs for the basket it answers with: the request's guest `basket-token` header (its
 * basket is merged into the client's, in the login's transaction) and the language to answer in.
 */
export interface LoginBasketRequest {
  guestToken: string | undefined;
  language: Language;
}

/** The login's basket request from its headers; a repeated header is no token. */
export function loginBasketRequest(headers: Record<string, string | string[] | undefined>, language: Language): LoginBasketRequest {
  const header = headers['basket-token'];
  return { guestToken: typeof header === 'string' ? header : undefined, language };
}

/**
 * The client account's basket in its store, with the request's guest basket merged in first. Runs
 * in the login's transaction after the token is issued: a login that fails merges nothing, and a
 * retried one finds the guest basket gone (see loginBasket).
 */
export function basketAfterLogin(trx: Db, account: ClientAccountRow, basket: LoginBasketRequest, now: number): Promise<BasketWire> {
  return loginBasket(trx, { clientAccountId: account.id, storeCode: account.store_code, ...basket, now });
}

/** How a session was opened: `password`, `verification`, `switch`, or the social provider's name. */
export interface LoginMethod {
  method: string;
  nativeForm?: boolean;
  /** A token re-issued from another: when that one's holder signed in (else now). */
  signedInAt?: number;
  /** A token re-issued from another: when that one ends (it ends no later). */
  expiresAt?: number;
}

/**
 * How long after signing in a token may do what a stolen token must not (erase the account,
 * change the email of an account without a password): a person at the device signs in again.
 */
export const FRESH_SIGN_IN_MS = 10 * 60_000;

/** Whether the token's holder signed in within FRESH_SIGN_IN_MS (re-issued tokens count from their source's sign-in). */
export async function signedInRecently(db: Db, tokenHash: string, now: number): Promise<boolean> {
  const signedInAt = await tokenSignedInAt(db, tokenHash);
  return signedInAt !== undefined && signedInAt >= now - FRESH_SIGN_IN_MS;
}

/** Who acts with a bearer token (the http layer's Principal has these). */
export interface Actor {
  userId: number;
  clientCode: string;
  storeCode: string;
  role: AccountType;
}

/** A new access token for one client account in its store, acting in `role`. */
export async function issueAccessToken(
  trx: Db,
  config: SessionConfig,
  account: ClientAccountRow,
  role: AccountType,
  now: number,
  how: LoginMethod,
): Promise<string> {
  const { token, hash } = newToken();
  await insertAccessToken(
    trx,
    {
      hash,
      userId: account.user_id,
      clientAccountId: account.id,
      storeCode: account.store_code,
      role,
      expiresAt: Math.min(now + config.accounts.accessTokenTtlMs, how.expiresAt ?? Infinity),
      loginMethod: how.method,
      nativeForm: how.nativeForm ?? null,
      signedInAt: how.signedInAt,
    },
    now,
  );
  return token;
}

/**
 * The accounts a user may act with in a store: only ACTIVE ones (one a registration form attached
 * waits for its contact's confirmation; one a company removed stays with that company, beside the
 * account another company gave the person since), and a wholesale account cannot log in to WEB2.
 */
function usableAccounts(accounts: ClientAccountRow[], storeCode: string): ClientAccountRow[] {
  return accounts.filter((a) => a.status === 'ACTIVE' && a.store_code === storeCode && !(a.type === 'WHOLESALE' && storeCode === 'WEB2'));
}

/** The account types a user may act as in a store (see usableAccounts). */
export function rolesIn(accounts: ClientAccountRow[], storeCode: string): AccountType[] {
  const held = new Set(usableAccounts(accounts, storeCode).map((a) => a.type));
  return ACCOUNT_TYPES.filter((type) => held.has(type));
}

export type LoginResult = { accessToken: string; basket: BasketWire } | { roles: AccountType[] };

/** The store a login form names; a 422 on `field` for a code that is not a store's. */
export function storeNamedIn(field: string, code: string): StoreCode {
  if (!isStoreCode(code)) throw invalidField(field, 'auth.unknownStoreCode', { stores: STORE_CODES.join(', ') });
  return code;
}

/**
 * A 423 when the store a login or a switch names in its body is locked. The request hook answers a
 * locked store 423 by the `store` header only: named in the body, a locked store gave out tokens,
 * made accounts and merged baskets while it was closed for maintenance.
 */
export async function refuseLockedStore(db: Db, storeCode: StoreCode, now: number): Promise<void> {
  const store = await getStore(db, storeCode);
  if (!store?.isLocked) return;
  const retryAfter = store.lockedUntil === null ? 0 : Math.ceil((Number(store.lockedUntil) - now) / 1000);
  throw new DomainError('locked', 'error.storeLocked', {}, retryAfter > 0 ? retryAfter : undefined);
}

/**
 * The user the credentials belong to. Wrong password, unknown email and a user without a password
 * get the same 422 after the same work (the hash runs in every case), after `onFailure` (which
 * counts the failure); "not verified" is told only once the password was right. A legacy hash is
 * replaced by an argon2 one on the way.
 */
export async function checkCredentials(
  db: Db,
  config: Pick<AccountsConfig, 'accounts'>,
  form: LoginForm,
  now: number,
  onFailure: () => Promise<void> = async () => {},
): Promise<UserRow> {
  const user = await findUserByEmail(db, form.email);
  const check = await verifyPassword(user?.password_hash ?? null, form.password, config.accounts.legacyPasswordSalt);
  if (!user || !check.ok) {
    await onFailure();
    throw invalidField('password', 'auth.invalidCredentials');
  }
  // What refuseChangedCredentials compares with: the hash this login leaves.
  const checked = check.rehash ? { ...user, password_hash: await hashPassword(form.password) } : user;
  if (check.rehash) await updateUser(db, user.id, { password_hash: checked.password_hash }, now);
  if (!user.email_verified) throw invalidField('email', 'auth.notVerified');
  return checked;
}

/**
 * Refuses, as a wrong password, a login whose credentials stopped being the user's after
 * checkCredentials read them: a password reset, a password change or an email change that committed
 * in between ended every session it did not keep, and a session opened after it would outlive it.
 * Runs in the login's transaction before its token, under the user's row lock, which those changes
 * hold until they commit (after the account's lock, as they take them). A hash replaced by another
 * login's rehash of a legacy one is still the same password: one that changed is checked again.
 */
export async function refuseChangedCredentials(
  trx: Db,
  config: Pick<AccountsConfig, 'accounts'>,
  checked: Pick<UserRow, 'id' | 'password_hash'>,
  form: LoginForm,
): Promise<void> {
  await lockUser(trx, checked.id);
  const user = await findUserById(trx, checked.id);
  const wrong = () => invalidField('password', 'auth.invalidCredentials');
  if (!user || user.email !== normaliseEmail(form.email)) throw wrong();
  if (user.password_hash === checked.password_hash) return;
  if (!(await verifyPassword(user.password_hash, form.password, config.accounts.legacyPasswordSalt)).ok) throw wrong();
}

export interface SessionRequest {
  userId: number;
  storeCode: string;
  role: AccountType | undefined;
  how: LoginMethod;
  /** The request field that named the store, for the "no account here" error. */
  storeField: string;
  /** Runs just before the token is issued (e.g. to consume a single-use record). */
  beforeIssue?: () => Promise<void>;
  basket: LoginBasketRequest;
  /** The answer when the person was erased since the login found them (as to a login sent after it); a 401 by default. */
  erasedAnswer?: () => Error;
}

const isLiveRetailAccount = (account: ClientAccountRow) => account.type === 'SIMPLE' && isLiveAccount(account);

/**
 * Refuses a person the erasure ended after the login found them (it marks every account ERASED at
 * once, and nothing else does): their credentials were checked before it committed.
 */
function refuseErasedPerson(accounts: ClientAccountRow[], request: Pick<SessionRequest, 'erasedAnswer'>): void {
  if (accounts.length === 0 || !accounts.every((account) => account.status === 'ERASED')) return;
  throw (request.erasedAnswer ?? (() => unauthenticated('auth.unauthorized')))();
}

/**
 * A retail customer of the other store logs in here with the same credentials: their retail account
 * here is made, under the erasure's locks of the person (lockAccountsForErasure), with their accounts
 * read again once those are held. An erasure running meanwhile is waited for, and the person is then
 * found erased (no account is made: `erasedAnswer`); one that starts meanwhile waits for this login
 * and erases the account and its token with the rest. Made without them, a login that ran as the
 * erasure did left an active account with a working token on the erased person. Only a login that
 * makes an account takes them; any other reads the accounts once and locks only the account it opens
 * the session for (lockChosenAccount).
 */
async function accountsWithRetailHere(trx: Db, request: SessionRequest, now: number): Promise<ClientAccountRow[]> {
  const { userId, storeCode } = request;
  await lockAccountsForErasure(trx, userId);
  const accounts = await accountsOfUser(trx, userId);
  refuseErasedPerson(accounts, request);
  // A login at the same moment may have made it (or another account here) already.
  if (rolesIn(accounts, storeCode).length > 0) return accounts;
  await ensureClientAccount(trx, { userId, storeCode, type: 'SIMPLE' }, now);
  return accountsOfUser(trx, userId);
}

/**
 * The account a session is opened for, under its lock (modules/client-account-lock), as every writer
 * of the client's data takes it: its token and basket are the client's data. An erasure (or a company's
 * removal) running meanwhile is waited for and the login answered as one sent after it (`erasedAnswer`);
 * one that starts meanwhile waits for this login and ends its token and basket with the rest. Without
 * it, a login that ran as the erasure did left its token and the guest's merged basket on the erased account.
 */
async function lockChosenAccount(trx: Db, account: ClientAccountRow, request: SessionRequest): Promise<void> {
  try {
    await lockLiveClientAccount(trx, account.id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'unauthenticated' && request.erasedAnswer) throw request.erasedAnswer();
    throw error;
  }
}

/**
 * Role selection and token, the same for every way of logging in: with several account types in
 * the store and no role given the answer is the roles to choose from (no account is chosen, so no
 * basket is merged); otherwise a token and the chosen account's basket, the guest's merged in.
 */
export async function openSession(trx: Db, config: SessionConfig, request: SessionRequest, now: number): Promise<LoginResult> {
  const { userId, storeCode, role: asked } = request;
  let accounts = await accountsOfUser(trx, userId);
  refuseErasedPerson(accounts, request);
  let roles = rolesIn(accounts, storeCode);
  if (roles.length === 0 && accounts.some(isLiveRetailAccount)) {
    accounts = await accountsWithRetailHere(trx, request, now);
    roles = rolesIn(accounts, storeCode);
  }
  if (roles.length === 0) throw invalidField(request.storeField, 'auth.noAccountInStore');
  if (asked !== undefined && !roles.includes(asked)) {
    throw invalidField('role', 'auth.roleNotHeld', { role: asked, roles: roles.join(', ') });
  }
  if (asked === undefined && roles.length > 1) return { roles };
  const role = asked ?? roles[0]!;
  // The usable one: beside it may be a removed account of the same type, kept for the company that removed them.
  const account = usableAccounts(accounts, storeCode).find((a) => a.type === role)!;
  await lockChosenAccount(trx, account, request);
  await request.beforeIssue?.();
  const accessToken = await issueAccessToken(trx, config, account, role, now, request.how);
  return { accessToken, basket: await basketAfterLogin(trx, account, request.basket, now) };
}

/**
 * Re-issues a retail customer's token for the other store, creating the account there if needed;
 * answers with the basket there (a guest basket of that store merged in).
 */
export async function switchWebStore(
  trx: Db,
  config: SessionConfig,
  actor: Actor & { tokenHash: string },
  input: { target: string; basket: LoginBasketRequest },
  now: number,
) {
  const { target } = input;
  const storeCode = storeNamedIn('webStoreNavCode', target);
  if (storeCode === actor.storeCode) throw invalidField('webStoreNavCode', 'auth.sameStore');
  if (actor.role !== 'SIMPLE') throw invalidField('webStoreNavCode', 'auth.retailOnly');
  await refuseLockedStore(trx, storeCode, now);
  // Under the erasure's locks of the person, as a login that makes an account takes them: an erasure
  // running meanwhile is waited for, and the switch then refused (401, as its token is gone).
  await lockAccountsForErasure(trx, actor.userId);
  const accounts = await accountsOfUser(trx, actor.userId);
  refuseErasedPerson(accounts, {});
  // The token was read before these locks: a password change, reset or email change that ended it
  // has committed since (they take them too). No new token comes of an ended one (401, as its own).
  const session = await tokenSession(trx, actor.tokenHash);
  if (session === undefined) throw unauthenticated('auth.unauthorized');
  const account =
    accounts.find((a) => a.store_code === storeCode && a.type === 'SIMPLE') ??
    (await ensureClientAccount(trx, { userId: actor.userId, storeCode, type: 'SIMPLE' }, now));
  // The new token is a retail one whatever else the user holds there: it never widens the role.
  // Not a sign-in: the new token keeps the old one's sign-in time, and ends when it does (a fresh
  // lifetime at each switch let a token, a stolen one too, be switched back and forth for ever).
  const accessToken = await issueAccessToken(trx, config, account, 'SIMPLE', now, { method: 'switch', ...session });
  return { accessToken, basket: await basketAfterLogin(trx, account, input.basket, now) };
}

/**
 * Whether a bearer token read earlier is still there: not logged out, nor ended since by a password
 * change, a reset, an email change or an erasure. Read under the person's locks (which those take
 * before they end sessions), what it answers holds until the caller commits.
 */
export async function isSessionLive(db: Db, tokenHash: string): Promise<boolean> {
  return (await tokenSignedInAt(db, tokenHash)) !== undefined;
}

/** Logs out: revokes the token the actor presented (its other sessions stay). */
export async function endSession(db: Db, actor: { tokenHash: string }): Promise<void> {
  await revokeToken(db, actor.tokenHash);
}

/** The company a client account acts for and its role there; null for a retail account. */
export type CompanyOf = (db: Db, clientAccountId: number) => Promise<{ name: string; role: 'MASTER' | 'EMPLOYEE' } | null>;

export async function describeActor(db: Db, actor: Actor & { clientAccountId: number }, companyOf: CompanyOf) {
  const user = (await findUserById(db, actor.userId))!;
  const accounts = await accountsOfUser(db, actor.userId);
  return {
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    clientCode: actor.clientCode,
    webStoreNavCode: actor.storeCode,
    role: actor.role,
    roles: rolesIn(accounts, actor.storeCode),
    company: await companyOf(db, actor.clientAccountId),
  };
}
