import { randomBytes } from 'node:crypto';
import { normaliseEmail } from '../../infra/email-address.js';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { AccountType } from '../../db/schema.js';
import type { AppUserTable, ClientAccountStatus, ClientAccountTable, CompanyTable } from './accounts.tables.js';
import { customerStream, emitEvent } from '../events/index.js';

export type UserRow = Selectable<AppUserTable>;
export type ClientAccountRow = Selectable<ClientAccountTable>;

/**
 * Holds the user's row for the transaction on PostgreSQL (SQLite runs one write transaction at a
 * time). A takeover of the account (a link used from the mailbox, a provider-verified sign-in by the
 * address owner) updates the row before it drops the identities and sessions, so a sign-in that
 * takes this lock and then reads its identity again either sees the takeover done or makes it wait
 * until its own session exists, which the takeover then ends.
 */
export async function lockUser(trx: Db, userId: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('app_user').select('id').where('id', '=', userId));
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('app_user').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('app_user').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(
  db: Db,
  user: Omit<Insertable<AppUserTable>, 'created_at' | 'updated_at' | 'email_verified' | 'newsletter'> & { newsletter?: boolean },
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('app_user')
    .values({
      ...user,
      email: normaliseEmail(user.email),
      email_verified: false,
      newsletter: user.newsletter ?? false,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  // Every way a person becomes a user passes here (registration, invitations, imports, social
  // sign-in): the marketing platforms' event commits with the row (modules/events).
  await emitEvent(
    db,
    {
      type: 'customer.created',
      stream: customerStream(id),
      data: {
        customerId: id,
        email: normaliseEmail(user.email),
        firstName: user.first_name ?? null,
        lastName: user.last_name ?? null,
        language: user.language,
        newsletter: user.newsletter ?? false,
      },
    },
    now,
  );
  return id;
}

export async function updateUser(db: Db, id: number, changes: Omit<Updateable<AppUserTable>, 'id' | 'created_at'>, now: number) {
  const result = await db
    .updateTable('app_user')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  if (changesExportedPerson(changes)) await touchExportedAccounts(db, { userId: id }, now);
  return result;
}

/**
 * A registration not activated yet takes what the newest form says of the person; the marketing
 * platforms hear of it as of a profile edit (`customer.updated`), since they were told the first form.
 */
export async function updatePendingRegistration(
  db: Db,
  id: number,
  values: Pick<Updateable<AppUserTable>, 'first_name' | 'last_name' | 'phone' | 'birthday' | 'gender' | 'newsletter' | 'language'>,
  now: number,
): Promise<void> {
  const row = await db
    .updateTable('app_user')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returning(['email', 'first_name', 'last_name', 'phone', 'language', 'birthday'])
    .executeTakeFirstOrThrow();
  await touchExportedAccounts(db, { userId: id }, now);
  await emitEvent(
    db,
    {
      type: 'customer.updated',
      stream: customerStream(id),
      data: {
        customerId: id,
        email: row.email,
        firstName: row.first_name,
        lastName: row.last_name,
        phone: row.phone,
        language: row.language,
        birthday: row.birthday,
      },
    },
    now,
  );
}

/** The user a verification token was minted for, while it is valid. */
export function findUserByVerificationToken(db: Db, tokenHash: string, now: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('app_user')
    .selectAll()
    .where('verification_token_hash', '=', tokenHash)
    .where('verification_expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Applies `changes` and clears the verification token, only while the token is still the user's
 * and valid: false when another request consumed it first.
 */
export async function consumeVerificationToken(
  db: Db,
  userId: number,
  tokenHash: string,
  changes: Omit<Updateable<AppUserTable>, 'id' | 'created_at' | 'updated_at'>,
  now: number,
): Promise<boolean> {
  const consumed = await db
    .updateTable('app_user')
    .set({
      ...changes,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('verification_token_hash', '=', tokenHash)
    .where('verification_expires_at', '>', now)
    .executeTakeFirst();
  if (consumed.numUpdatedRows > 0n && changesExportedPerson(changes)) await touchExportedAccounts(db, { userId }, now);
  return consumed.numUpdatedRows > 0n;
}

/** Keeps the hash of an invitation's new link, replacing the account's earlier one (a mail sent again). */
export async function saveInvitationToken(
  db: Db,
  clientAccountId: number,
  tokenHash: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  const link = { token_hash: tokenHash, expires_at: expiresAt, created_at: now };
  await db
    .insertInto('invitation_token')
    .values({ client_account_id: clientAccountId, ...link })
    .onConflict((conflict) => conflict.column('client_account_id').doUpdateSet(link))
    .execute();
}

/**
 * Whether a company account waiting for its person came by a company's invitation: a registration or a
 * wholesale approval makes the company with its first account, so any later one of the company was
 * invited (as migration 2026_12_01_0610 tells them apart). Its link may have expired, or never been followed.
 */
export async function isPendingInvitation(db: Db, account: Pick<ClientAccountRow, 'id' | 'company_id' | 'status'>): Promise<boolean> {
  if (account.company_id === null || account.status !== 'PENDING_CONFIRMATION') return false;
  const older = await db
    .selectFrom('client_account')
    .select('id')
    .where('company_id', '=', account.company_id)
    .where('id', '<', account.id)
    .limit(1)
    .executeTakeFirst();
  return older !== undefined;
}

/** The client account an invitation token was minted for, while it is valid. */
export function findInvitationByToken(db: Db, tokenHash: string, now: number) {
  return db
    .selectFrom('invitation_token')
    .select('client_account_id')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Deletes the invitation's link, only while it is this valid one: false when another request consumed it first. */
export async function consumeInvitationToken(db: Db, clientAccountId: number, tokenHash: string, now: number): Promise<boolean> {
  const consumed = await db
    .deleteFrom('invitation_token')
    .where('client_account_id', '=', clientAccountId)
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return consumed.numDeletedRows > 0n;
}

/** The user a password reset token was minted for, while it is valid. */
export function findUserByResetToken(db: Db, tokenHash: string, now: number): Promise<{ id: number; email: string } | undefined> {
  return db
    .selectFrom('app_user')
    .select(['id', 'email'])
    .where('reset_token_hash', '=', tokenHash)
    .where('reset_expires_at', '>', now)
    .executeTakeFirst();
}

/** Sets the password and clears the reset token, only while the token is valid: false when it was used meanwhile. */
export async function consumeResetToken(db: Db, userId: number, tokenHash: string, passwordHash: string, now: number): Promise<boolean> {
  const consumed = await db
    .updateTable('app_user')
    .set({ password_hash: passwordHash, reset_token_hash: null, reset_expires_at: null, updated_at: now })
    .where('id', '=', userId)
    .where('reset_token_hash', '=', tokenHash)
    .where('reset_expires_at', '>', now)
    .executeTakeFirst();
  return consumed.numUpdatedRows > 0n;
}

/** The statuses of accounts left out of the user's one account per store and type (client_account_live_uq). */
const NOT_LIVE: readonly ClientAccountStatus[] = ['REMOVED', 'ERASED'];

/** Whether the account counts in the user's one account per store and type: not REMOVED nor ERASED. */
export const isLiveAccount = (account: { status: ClientAccountStatus }) => !NOT_LIVE.includes(account.status);

/** Every client account of the user (any store, any status), oldest first. */
export function accountsOfUser(db: Db, userId: number): Promise<ClientAccountRow[]> {
  return db.selectFrom('client_account').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export function findAccount(db: Db, id: number): Promise<ClientAccountRow | undefined> {
  return db.selectFrom('client_account').selectAll().where('id', '=', id).executeTakeFirst();
}

const ROLE_OF_TYPE: Record<AccountType, string> = {
  SIMPLE: 'customer',
  BUSINESS: 'company_master',
  WHOLESALE: 'wholesale_master',
};

type NewClientAccount = { userId: number; storeCode: string; type: AccountType; companyId?: number; status?: ClientAccountStatus };

const accountValues = (account: NewClientAccount, now: number) => ({
  code: `PENDING-${randomBytes(6).toString('hex')}`,
  user_id: account.userId,
  store_code: account.storeCode,
  type: account.type,
  company_id: account.companyId ?? null,
  role: ROLE_OF_TYPE[account.type],
  status: account.status ?? 'ACTIVE',
  created_at: now,
  updated_at: now,
});

/** The app_user columns the data export's client-account items show (collections.ts of data-export). */
const EXPORTED_PERSON: ReadonlyArray<keyof AppUserTable> = ['gender', 'birthday'];

/** Whether `changes` of a user write a column the export's client-account items show. */
export const changesExportedPerson = (changes: object) => EXPORTED_PERSON.some((column) => column in changes);

/**
 * Moves the update time of the export items of a user's accounts (or of the accounts given), never
 * backwards: the data export's updatedFrom finds a changed gender, birthday or followed category by
 * it. In the writer's transaction.
 */
export async function touchExportedAccounts(
  db: Db,
  of: { userId: number } | { accountIds: readonly number[] },
  now: number,
): Promise<void> {
  if ('accountIds' in of && of.accountIds.length === 0) return;
  await db
    .updateTable('client_account')
    .set({ updated_at: now })
    .$call((query) => ('userId' in of ? query.where('user_id', '=', of.userId) : query.where('id', 'in', of.accountIds)))
    .where('updated_at', '<', now)
    .execute();
}

/** The public code, W followed by the zero-padded id, is set once the id is known. */
async function numbered(db: Db, id: number): Promise<ClientAccountRow> {
  await db
    .updateTable('client_account')
    .set({ code: `W${String(id).padStart(8, '0')}` })
    .where('id', '=', id)
    .execute();
  return (await findAccount(db, id))!;
}

/** Creates a client account (ACTIVE unless told); its public code is W followed by the zero-padded id. */
export async function createClientAccount(db: Db, account: NewClientAccount, now: number): Promise<ClientAccountRow> {
  const inserted = await db.insertInto('client_account').values(accountValues(account, now)).returning('id').executeTakeFirstOrThrow();
  return numbered(db, Number(inserted.id));
}

/**
 * The condition of the partial unique index client_account_live_uq (migration 2026_11_29_0500), as
 * an upsert must name it: SQLite takes an index as the conflict target only when the upsert's
 * condition is the index's own, word for word (a bound parameter is not the same).
 */
const LIVE_ACCOUNT = sql<boolean>`status not in ('REMOVED', 'ERASED')`;

/**
 * The user's live account of this type in the store, created (ACTIVE) when missing. Two requests
 * at once make one: the second insert waits for the first and then does nothing (a plain insert
 * would fail on the unique key and answer a 500), and the account made is read.
 */
export async function ensureClientAccount(db: Db, account: NewClientAccount, now: number): Promise<ClientAccountRow> {
  const inserted = await db
    .insertInto('client_account')
    .values(accountValues(account, now))
    .onConflict((conflict) => conflict.columns(['user_id', 'store_code', 'type']).where(LIVE_ACCOUNT).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return numbered(db, Number(inserted.id));
  return db
    .selectFrom('client_account')
    .selectAll()
    .where('user_id', '=', account.userId)
    .where('store_code', '=', account.storeCode)
    .where('type', '=', account.type)
    .where('status', 'not in', NOT_LIVE)
    .executeTakeFirstOrThrow();
}

/** Moves an account from one of `from` to `to`; false when it was in none of them (decided meanwhile). */
export async function changeAccountStatus(db: Db, id: number, from: ClientAccountStatus[], to: ClientAccountStatus): Promise<boolean> {
  const changed = await db
    .updateTable('client_account')
    .set({ status: to })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return changed.numUpdatedRows > 0n;
}

/** Business accounts waiting for the back office, oldest first. */
export function listPendingBusinessAccounts(db: Db, limit: number) {
  return db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .leftJoin('company', 'company.id', 'client_account.company_id')
    .select([
      'client_account.id',
      'client_account.created_at',
      'client_account.store_code',
      'app_user.email',
      'company.name',
      'company.registry_code',
    ])
    .where('client_account.status', '=', 'PENDING_APPROVAL')
    .where('client_account.type', '=', 'BUSINESS')
    .orderBy('client_account.id')
    .limit(limit)
    .execute();
}

export async function updateCompany(db: Db, id: number, company: Omit<Updateable<CompanyTable>, 'id' | 'created_at'>): Promise<void> {
  await db.updateTable('company').set(company).where('id', '=', id).execute();
}

export async function insertCompany(db: Db, company: Omit<Insertable<CompanyTable>, 'created_at'>, now: number): Promise<number> {
  const row = await db
    .insertInto('company')
    .values({ ...company, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** How many client accounts (any status) belong to the company. */
export async function companyAccountCount(db: Db, companyId: number): Promise<number> {
  const row = await db
    .selectFrom('client_account')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findCompany(db: Db, id: number) {
  return db.selectFrom('company').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAccessToken(
  db: Db,
  token: {
    hash: string;
    userId: number;
    clientAccountId: number;
    storeCode: string;
    role: AccountType;
    expiresAt: number;
    loginMethod: string;
    nativeForm: boolean | null;
    /** When its holder signed in, if not now (a re-issued token keeps its source's). */
    signedInAt?: number;
  },
  now: number,
): Promise<void> {
  await db
    .insertInto('access_token')
    .values({
      token_hash: token.hash,
      user_id: token.userId,
      client_account_id: token.clientAccountId,
      store_code: token.storeCode,
      role: token.role,
      created_at: now,
      signed_in_at: token.signedInAt ?? now,
      expires_at: token.expiresAt,
      login_method: token.loginMethod,
      native_form: token.nativeForm,
    })
    .execute();
}

/** When the token's holder last signed in (its creation for tokens from before that was kept); undefined: no such token. */
export async function tokenSignedInAt(db: Db, tokenHash: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('access_token')
    .select(['signed_in_at', 'created_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && Number(row.signed_in_at ?? row.created_at);
}

/** When the token's holder last signed in (as tokenSignedInAt) and when the token ends; undefined: no such token. */
export async function tokenSession(db: Db, tokenHash: string): Promise<{ signedInAt: number; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('access_token')
    .select(['signed_in_at', 'created_at', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && { signedInAt: Number(row.signed_in_at ?? row.created_at), expiresAt: Number(row.expires_at) };
}

export async function revokeToken(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('access_token').where('token_hash', '=', tokenHash).execute();
}

/** Deletes access tokens that have expired (the hourly maintenance). */
export async function pruneExpiredAccessTokens(db: Db, now: number): Promise<number> {
  return deleteInBatches(db, 'access_token', {
    key: 'token_hash',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
}

export async function revokeAllTokensOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('access_token').where('user_id', '=', userId).execute();
}
