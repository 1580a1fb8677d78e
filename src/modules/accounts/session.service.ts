import { STORE_CODES } from '../../config.js';
import type { AccountType } from '../../db/schema.js';
import type { Principal } from '../../http/auth.js';
import { fieldError } from '../../http/errors.js';
import type { Language } from '../../i18n/index.js';
import { hashPassword, verifyPassword } from '../../infra/passwords.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { newToken } from '../../infra/tokens.js';
import { isStoreCode } from '../store/store.service.js';
import {
  accountsOfUser,
  createClientAccount,
  findUserByEmail,
  findUserById,
  insertAccessToken,
  normaliseEmail,
  updateUser,
  type ClientAccountRow,
  type Db,
} from './accounts.repository.js';
import { ACCOUNT_TYPES, type LoginForm } from './accounts.schemas.js';
import type { AccountsDeps } from './registration.service.js';

export interface Basket {
  items: unknown[];
  itemCount: number;
  total: number;
  currency: string;
}

/** The client's basket; empty until baskets exist. */
export function emptyBasket(): Basket {
  return { items: [], itemCount: 0, total: 0, currency: 'EUR' };
}

/** How a session was opened: `password`, `verification`, `switch`, or the social provider's name. */
export interface LoginMethod {
  method: string;
  nativeForm?: boolean;
}

/** A new access token for one client account in its store, acting in `role`. */
export async function issueAccessToken(
  trx: Db,
  deps: AccountsDeps,
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
      expiresAt: now + deps.config.accounts.accessTokenTtlMs,
      loginMethod: how.method,
      nativeForm: how.nativeForm ?? null,
    },
    now,
  );
  return token;
}

/** The account types a user may act as in a store; a wholesale account cannot log in to WEB2. */
export function rolesIn(accounts: ClientAccountRow[], storeCode: string): AccountType[] {
  const held = new Set(
    accounts.filter((a) => a.store_code === storeCode && !(a.type === 'WHOLESALE' && storeCode === 'WEB2')).map((a) => a.type),
  );
  return ACCOUNT_TYPES.filter((type) => held.has(type));
}

export type LoginResult = { accessToken: string; basket: Basket } | { roles: AccountType[] };

/**
 * Wrong password, unknown email and a user without a password get the same 422 after the same
 * work (the hash runs in every case); "not verified" is told only once the password was right.
 */
export async function login(deps: AccountsDeps, form: LoginForm, language: Language, now: number): Promise<LoginResult> {
  if (!isStoreCode(form.web_store_nav_code)) {
    throw fieldError('web_store_nav_code', language, 'auth.unknownStoreCode', { stores: STORE_CODES.join(', ') });
  }
  const storeCode = form.web_store_nav_code;
  await consumeRateLimit(deps.db, `login:email:${normaliseEmail(form.email)}`, deps.config.rateLimits.authPerEmail, now);
  const user = await findUserByEmail(deps.db, form.email);
  const check = await verifyPassword(user?.password_hash ?? null, form.password, deps.config.accounts.legacyPasswordSalt);
  if (!user || !check.ok) throw fieldError('password', language, 'auth.invalidCredentials');
  if (check.rehash) await updateUser(deps.db, user.id, { password_hash: await hashPassword(form.password) }, now);
  if (!user.email_verified) throw fieldError('email', language, 'auth.notVerified');

  return deps.db.transaction().execute((trx) =>
    openSession(trx, deps, { userId: user.id, storeCode, role: form.role, language, now, how: { method: 'password' }, storeField: 'web_store_nav_code' }),
  );
}

export interface SessionRequest {
  userId: number;
  storeCode: string;
  role: AccountType | undefined;
  language: Language;
  now: number;
  how: LoginMethod;
  /** The request field that named the store, for the "no account here" error. */
  storeField: string;
  /** Runs just before the token is issued (e.g. to consume a single-use record). */
  beforeIssue?: () => Promise<void>;
}

/**
 * Role selection and token, the same for every way of logging in: with several account types in
 * the store and no role given the answer is the roles to choose from; otherwise a token.
 */
export async function openSession(trx: Db, deps: AccountsDeps, request: SessionRequest): Promise<LoginResult> {
  const { userId, storeCode, role: asked, language, now } = request;
  let accounts = await accountsOfUser(trx, userId);
  let roles = rolesIn(accounts, storeCode);
  // A retail customer of the other store logs in here with the same credentials.
  if (roles.length === 0 && accounts.some((a) => a.type === 'SIMPLE')) {
    await createClientAccount(trx, { userId, storeCode, type: 'SIMPLE' }, now);
    accounts = await accountsOfUser(trx, userId);
    roles = rolesIn(accounts, storeCode);
  }
  if (roles.length === 0) throw fieldError(request.storeField, language, 'auth.noAccountInStore');
  if (asked !== undefined && !roles.includes(asked)) {
    throw fieldError('role', language, 'auth.roleNotHeld', { role: asked, roles: roles.join(', ') });
  }
  if (asked === undefined && roles.length > 1) return { roles };
  const role = asked ?? roles[0]!;
  const account = accounts.find((a) => a.store_code === storeCode && a.type === role)!;
  await request.beforeIssue?.();
  return { accessToken: await issueAccessToken(trx, deps, account, role, now, request.how), basket: emptyBasket() };
}

/** Re-issues a retail customer's token for the other store, creating the account there if needed. */
export async function switchWebStore(deps: AccountsDeps, principal: Principal, target: string, language: Language, now: number) {
  if (!isStoreCode(target)) {
    throw fieldError('webStoreNavCode', language, 'auth.unknownStoreCode', { stores: STORE_CODES.join(', ') });
  }
  if (target === principal.storeCode) throw fieldError('webStoreNavCode', language, 'auth.sameStore');
  if (principal.role !== 'SIMPLE') throw fieldError('webStoreNavCode', language, 'auth.retailOnly');
  return deps.db.transaction().execute(async (trx) => {
    const accounts = await accountsOfUser(trx, principal.userId);
    const account =
      accounts.find((a) => a.store_code === target && a.type === 'SIMPLE') ??
      (await createClientAccount(trx, { userId: principal.userId, storeCode: target, type: 'SIMPLE' }, now));
    // The new token is a retail one whatever else the user holds there: it never widens the role.
    return { accessToken: await issueAccessToken(trx, deps, account, 'SIMPLE', now, { method: 'switch' }) };
  });
}

export async function describePrincipal(deps: AccountsDeps, principal: Principal) {
  const user = (await findUserById(deps.db, principal.userId))!;
  const accounts = await accountsOfUser(deps.db, principal.userId);
  return {
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    clientCode: principal.clientCode,
    webStoreNavCode: principal.storeCode,
    role: principal.role,
    roles: rolesIn(accounts, principal.storeCode),
  };
}
