import type { Db } from '../../db/database.js';
import { mailboxKey, normaliseEmail } from '../../infra/email-address.js';
import { conflict, notFound } from '../../infra/domain-error.js';
import { consumeRateLimit, type RateLimit } from '../../infra/rate-limit.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import type { PageRequest } from '../../http/paging.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import {
  createClientAccount,
  findPersonByEmail,
  insertUser,
  isPendingInvitation,
  queueAccountMail,
  refuseReservedEmail,
  type AccountsConfig,
  type ClientAccountRow,
} from '../accounts/index.js';
import { lockClientAccountsOfUser } from '../client-account-lock/index.js';
import type { CompanyUser, CompanyUserChange, CompanyUserInvitation } from './companies.schemas.js';
import type { CompanyMaster } from './company-access.js';
import { EMPLOYEE_ROLES, storedRole, wireRole } from './company-roles.js';
import {
  accountsInStore,
  companyUserPage,
  countOtherActiveMasters,
  findCompanyUser,
  forgetInvitationLink,
  hasAccountOutsideCompany,
  keepInvitationNames,
  reattachRemovedAccount,
  removeAccount,
  renameInvitation,
  renameUser,
  setAccountRole,
  type CompanyUserRow,
} from './company-users.repository.js';

// A company's users are its client accounts in the store. Every id is looked up within the
// master's company and store, so another company's id is the same 404 as one that does not exist.
// A change is given the master read under the company's lock (lockedMaster), so it runs under that
// lock: two changes to one company's users, the "one master stays" checks among them, never overlap.

const scopeOf = (master: CompanyMaster) => ({ companyId: master.companyId, storeCode: master.storeCode });
const userNotFound = () => notFound('companies.userNotFound');

/**
 * Invitations one company may send in an hour, and send to one address. Each mails the address a
 * link under the company's name, which its master typed: unlimited, anyone who registered a company
 * had the shop mail any address any text, and the same address again and again by removing and
 * re-inviting it. The per-address count is the company's own: counted for every company together,
 * one company could keep a person from being invited by their real employer.
 */
export const INVITATIONS_PER_COMPANY: RateLimit = { max: 50, windowMs: 3_600_000 };
export const INVITATIONS_PER_COMPANY_AND_EMAIL: RateLimit = { max: 5, windowMs: 3_600_000 };

/**
 * Counts an invitation against both limits before any work (a 429 with Retry-After past either):
 * a refused one (the address has a company account here: a 409) counts too, so a master cannot test
 * addresses without end either. On the database, never in the invitation's transaction.
 */
export async function countInvitation(db: Db, master: CompanyMaster, email: string, now: number): Promise<void> {
  await consumeRateLimit(db, `company-invitation:company:${master.companyId}`, INVITATIONS_PER_COMPANY, now);
  await consumeRateLimit(db, `company-invitation:email:${master.companyId}:${mailboxKey(email)}`, INVITATIONS_PER_COMPANY_AND_EMAIL, now);
}

/** A company account the person holds in the store: a business or wholesale one, neither removed by its company nor erased. */
const isCompanyAccountHeld = (account: { type: string; status: string }) =>
  account.type !== 'SIMPLE' && account.status !== 'REMOVED' && account.status !== 'ERASED';

/** Whether the company sees the names it gave the invitation: someone who had a user already and has not accepted yet. */
const shownAsInvited = (row: CompanyUserRow) => row.status !== 'ACTIVE' && row.invited_first_name !== null;

export function toCompanyUser(row: CompanyUserRow): CompanyUser {
  const invited = shownAsInvited(row);
  return {
    id: Number(row.id),
    clientCode: row.code,
    email: row.email,
    firstName: invited ? row.invited_first_name! : row.first_name,
    lastName: invited ? row.invited_last_name! : row.last_name,
    role: wireRole(row.role),
    status: row.status === 'ACTIVE' ? 'ACTIVE' : 'INVITED',
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

export async function listCompanyUsers(db: Db, master: CompanyMaster, page: PageRequest) {
  const { rows, total } = await companyUserPage(db, scopeOf(master), page);
  return { items: rows.map(toCompanyUser), total };
}

/**
 * Invites a person into the company: a user without a password when the email is new, a client
 * account of the company's kind waiting for their confirmation, and the invitation mail of the
 * accounts module (queued in this transaction), whose link sets the password and activates the
 * account. A person holds a client account per store and kind (login asks which), so a retail
 * account here, verified or not, is no obstacle: the company's account is made beside it, and the
 * retail one keeps its own basket, orders and wishlist. This company's invitation of them that they
 * have not accepted is renewed (renewInvitation), unless the same form came within the resubmit
 * window: that repeat is answered the invitation as the first submit left it. Any other company
 * account of theirs here (business or wholesale: in use, another company's invitation, or waiting for
 * the back office) is a 409. An account
 * removed earlier counts as none: this company gets back the account it removed, with the orders,
 * addresses and baskets kept by it; another company's invitation makes a new account, and the
 * removed one stays with the company that removed it, its data that company's (the person's own
 * export and erasure still cover it). Two companies inviting one person at once: the second to
 * commit is a 409 (the unique index on live accounts).
 */
export async function inviteCompanyUser(
  trx: Db,
  config: Pick<AccountsConfig, 'jobs'>,
  master: CompanyMaster,
  input: { invitation: CompanyUserInvitation; language: Language },
  now: number,
): Promise<CompanyUser> {
  const { invitation } = input;
  refuseReservedEmail('email', invitation.email);
  const role = storedRole(master.kind, invitation.role);
  // The same form again within the resubmit window (a double click, a retry after a timeout) must not
  // renew the invitation its first submit made: that killed the link just mailed and mailed another.
  const form = [master.companyId, normaliseEmail(invitation.email), role, invitation.firstName, invitation.lastName];
  const repeat = !(await isFirstSubmission(trx, submissionKey('company-invitation', form), now));
  // Under the person's account locks (the company's is held): an erasure of theirs meanwhile is waited for.
  const user = await findPersonByEmail(trx, invitation.email, lockClientAccountsOfUser);
  const names = { first_name: invitation.firstName, last_name: invitation.lastName };
  let userId: number;
  let accountId: number | undefined;
  let language = input.language;
  if (user) {
    userId = Number(user.id);
    if (isLanguage(user.language)) language = user.language;
    const accounts = await accountsInStore(trx, userId, master.storeCode);
    const ours = accounts.filter(
      (account) => account.type === master.kind && account.company_id !== null && Number(account.company_id) === master.companyId,
    );
    const pending = await pendingInvitationAmong(trx, ours);
    if (pending) {
      accountId = Number(pending.id);
      if (repeat) return toCompanyUser((await findCompanyUser(trx, scopeOf(master), accountId))!);
      await renewInvitation(trx, accountId, role);
    } else {
      if (accounts.some(isCompanyAccountHeld)) throw conflict('companies.emailHasAccount');
      // Only the account this company removed; another company's removed account stays there.
      const removed = ours.at(-1);
      if (removed && (await reattachRemovedAccount(trx, Number(removed.id), master.companyId, role))) accountId = Number(removed.id);
    }
  } else {
    userId = await insertUser(trx, { email: normaliseEmail(invitation.email), ...names, language }, now);
  }
  // This company's invitation of them again: renewed, or its account given back after a withdrawal.
  const invitedAgain = accountId !== undefined;
  if (accountId === undefined) {
    const account = await createClientAccount(
      trx,
      { userId, storeCode: master.storeCode, type: master.kind, companyId: master.companyId, status: 'PENDING_CONFIRMATION' },
      now,
    );
    accountId = Number(account.id);
    await setAccountRole(trx, accountId, role);
  }
  // Someone who had a user already: the company sees the names it typed, not the person's own, until they accept.
  // But the names of a user this company's invitation made, who never accepted, are the company's to correct, as
  // PUT /company-user/{id} does: invited again (renewed, or back after a withdrawal) with other names, the person
  // finds those on the link and keeps them on accepting (kept beside the user's, they were shown only until then).
  if (user && invitedAgain && (await namesAreTheCompanys(trx, master, user, accountId))) await renameUser(trx, userId, names, now);
  else if (user) await keepInvitationNames(trx, accountId, names, now);
  await queueAccountMail(trx, config, { kind: 'verification', userId, clientAccountId: accountId, language, invitation: true }, now);
  return toCompanyUser((await findCompanyUser(trx, scopeOf(master), accountId))!);
}

/**
 * Whether the user's names are the ones this company's invitation of a new address gave: the account
 * keeps no invitation names of its own (the person had no user when it was invited), the person never
 * set a password (never accepted anything), and has no account outside the company.
 */
async function namesAreTheCompanys(trx: Db, master: CompanyMaster, user: { id: number; password_hash: string | null }, accountId: number) {
  const account = await findCompanyUser(trx, scopeOf(master), accountId);
  if (!account || account.invited_first_name !== null || user.password_hash !== null) return false;
  return !(await hasAccountOutsideCompany(trx, Number(user.id), master.companyId));
}

/** Of this company's accounts of the person, the one its invitation made that nobody accepted yet (its link expired or not). */
async function pendingInvitationAmong<T extends Pick<ClientAccountRow, 'id' | 'company_id' | 'status'>>(trx: Db, accounts: T[]) {
  for (const account of accounts) if (await isPendingInvitation(trx, account)) return account;
  return undefined;
}

/**
 * Inviting again someone this company invited who has not accepted renews that invitation (the link
 * lasts VERIFICATION_TOKEN_TTL, and a person whose link expired had no way back but the company
 * removing them and inviting them again): the role asked now, the link mailed before stops working at
 * once, and the caller mails a new one. An accepted account stays a 409.
 */
async function renewInvitation(trx: Db, accountId: number, role: string): Promise<void> {
  await setAccountRole(trx, accountId, role);
  await forgetInvitationLink(trx, accountId);
}

/**
 * Changes a company user's role or name. A master never takes the master role from themselves,
 * and the company keeps an active master. A name belongs to the person: it is changed only for
 * someone whose every account is in this company.
 */
export async function changeCompanyUser(trx: Db, master: CompanyMaster, id: number, change: CompanyUserChange, now: number) {
  const scope = scopeOf(master);
  const target = await findCompanyUser(trx, scope, id);
  if (!target) throw userNotFound();
  const targetId = Number(target.id);
  if (change.role !== undefined && change.role !== wireRole(target.role)) {
    if (change.role === 'EMPLOYEE') {
      if (targetId === master.clientAccountId) throw conflict('companies.selfDemotion');
      if ((await countOtherActiveMasters(trx, scope, EMPLOYEE_ROLES, targetId)) === 0) throw conflict('companies.lastMaster');
    }
    await setAccountRole(trx, targetId, storedRole(master.kind, change.role));
  }
  if (change.firstName !== undefined || change.lastName !== undefined) {
    const names = { first_name: change.firstName, last_name: change.lastName };
    // Not accepted yet: the names are the invitation's, the company's own to change; the person's stay theirs.
    if (shownAsInvited(target)) await renameInvitation(trx, targetId, names);
    else {
      const userId = Number(target.user_id);
      if (userId !== master.userId && (await hasAccountOutsideCompany(trx, userId, master.companyId))) {
        throw conflict('companies.nameNotTheirs');
      }
      await renameUser(trx, userId, names, now);
    }
  }
  return toCompanyUser((await findCompanyUser(trx, scope, targetId))!);
}

/** Removes a user from the company (their account REMOVED, sessions ended); never the last active master. */
export async function removeCompanyUser(trx: Db, master: CompanyMaster, id: number, now: number): Promise<void> {
  const scope = scopeOf(master);
  const target = await findCompanyUser(trx, scope, id);
  if (!target) throw userNotFound();
  const targetId = Number(target.id);
  const activeMaster = target.status === 'ACTIVE' && wireRole(target.role) === 'MASTER';
  if (activeMaster && (await countOtherActiveMasters(trx, scope, EMPLOYEE_ROLES, targetId)) === 0) throw conflict('companies.lastMaster');
  if (!(await removeAccount(trx, targetId, Number(target.user_id), now))) throw userNotFound();
}
