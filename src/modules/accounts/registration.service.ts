import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import { normaliseEmail, refuseReservedEmail } from '../../infra/email-address.js';
import type { AccountType } from '../../db/schema.js';
import type { Language } from '../../i18n/index.js';
import type { AccountsContext } from './accounts.context.js';
import { queueAccountMail, queueAccountRequest } from './accounts.jobs.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import {
  accountsOfUser,
  changeAccountStatus,
  companyAccountCount,
  createClientAccount,
  findUserByEmail,
  insertCompany,
  insertUser,
  isLiveAccount,
  updateCompany,
  updatePendingRegistration,
  type ClientAccountRow,
} from './accounts.repository.js';
import type { BusinessRegistrationForm, SimpleRegistrationForm, WholesaleRegistrationForm } from './accounts.schemas.js';
import { checkBirthday } from './birthday.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';
import { insertWholesaleRequest } from './wholesale.repository.js';
import { rolesIn } from './session.service.js';

// Registration answers the same, after the same work, whether or not the email is known: the
// request checks the form and queues one job; the worker (below) applies the state table.

/** The request side of /auth/register and /auth/register-simple. */
export async function requestSimpleRegistration(
  trx: Db,
  context: AccountsContext,
  form: SimpleRegistrationForm,
  now: number,
): Promise<void> {
  const { config, storeCode, language } = context;
  refuseReservedEmail('email', form.email);
  checkBirthday(form.birthday, now);
  await queueAccountRequest(
    trx,
    config,
    { kind: 'registration', form: { ...form, email: normaliseEmail(form.email) }, storeCode, language },
    now,
  );
}

/** The request side of /auth/register-business. */
export async function requestBusinessRegistration(
  trx: Db,
  context: AccountsContext,
  form: BusinessRegistrationForm,
  now: number,
): Promise<void> {
  const { config, storeCode, language } = context;
  refuseReservedEmail('contact.email', form.contact.email);
  const contact = { ...form.contact, email: normaliseEmail(form.contact.email) };
  await queueAccountRequest(trx, config, { kind: 'businessRegistration', form: { ...form, contact }, storeCode, language }, now);
}

/**
 * The user of the email as a registration (or an invitation) adds an account to them: read under the
 * locks the erasure takes (`lockPerson`: the person's companies, then their client accounts; only the
 * accounts for a caller holding a company's lock already), and read again once they are held. An
 * erasure running meanwhile is waited for, and the email is then no one's (a new person is made, as
 * for a registration sent after the erasure); one that starts meanwhile waits for this transaction
 * and erases the account it adds. Read without them, a registration that ran as the erasure did added
 * a live account to the erased user, and its link went to the erased placeholder address. (A user
 * without any account has nothing to lock; none is made without one.)
 */
export async function findPersonByEmail(
  trx: Db,
  email: string,
  lockPerson: (trx: Db, userId: number) => Promise<void> = lockAccountsForErasure,
) {
  const user = await findUserByEmail(trx, email);
  // SQLite: a write transaction is serial from its start, so the read stays true.
  if (!user || !isPostgres(trx)) return user;
  await lockPerson(trx, user.id);
  return findUserByEmail(trx, email);
}

/** Simple registration in the worker, the same for the web and the mobile scenario: the spec's state table. */
export async function registerSimple(trx: Db, context: AccountsContext, form: SimpleRegistrationForm, now: number): Promise<void> {
  const { config, storeCode, language } = context;
  const user = await findPersonByEmail(trx, form.email);
  if (!user) {
    const userId = await insertUser(trx, { email: form.email, ...registrationValues(form, language) }, now);
    const account = await createClientAccount(trx, { userId, storeCode, type: 'SIMPLE' }, now);
    await queueAccountMail(trx, config, { kind: 'verification', userId, clientAccountId: account.id, language }, now);
    return;
  }
  const accounts = await accountsOfUser(trx, user.id);
  const simpleHere = accounts.find((a) => a.type === 'SIMPLE' && a.store_code === storeCode);
  const simpleElsewhere = accounts.find((a) => a.type === 'SIMPLE' && a.store_code !== storeCode);
  if (Boolean(user.email_verified) && simpleHere) return;
  // The other-store mail tells them to log in here with the same password, and that login makes the
  // retail account here only for someone who holds no account here (openSession). A business or
  // wholesale customer here is the state table's user without a simple account: told to log in,
  // they got their company account and never the retail one.
  if (Boolean(user.email_verified) && simpleElsewhere && rolesIn(accounts, storeCode).length === 0) {
    await queueAccountMail(
      trx,
      config,
      { kind: 'otherStore', userId: user.id, storeCode, otherStoreCode: simpleElsewhere.store_code, language },
      now,
    );
    return;
  }
  // Not activated yet: the person registers again (the first mail lost, a typo to correct), and the
  // link activates what this newest form says (it kept the first form's). Nobody can sign in as such a
  // user (login wants a verified email), and the request answers the same either way: the worker does it.
  if (!user.email_verified) await updatePendingRegistration(trx, user.id, registrationValues(form, language), now);
  // Not activated yet (mail again), or a user without a simple account here (create it, mail).
  const account = simpleHere ?? (await createClientAccount(trx, { userId: user.id, storeCode, type: 'SIMPLE' }, now));
  await queueAccountMail(trx, config, { kind: 'verification', userId: user.id, clientAccountId: account.id, language }, now);
}

/** What a simple registration form says of the person. */
function registrationValues(form: SimpleRegistrationForm, language: Language) {
  return {
    first_name: form.firstName ?? null,
    last_name: form.lastName ?? null,
    phone: form.phone ?? null,
    birthday: form.birthday ?? null,
    gender: form.gender ?? null,
    newsletter: form.newsletter ?? false,
    language,
  };
}

/**
 * A company and its business account in this store, in the worker. Whoever fills in the form
 * may name anyone as the contact, so the account is usable only once the contact followed the
 * link mailed to them (the verification flow, which for a user who is verified already asks to
 * confirm the account), and in a store that wants it only after the back office approved it
 * (the link is mailed then). Only an earlier registration of the contact's own (a master alone in
 * its company, not active) is taken up again; any other live business account of theirs here
 * (active, invited to a company) is left alone with its company, and nothing is mailed, since the
 * form is anyone's: it must not rewrite a company. An account a company removed (or an erased
 * one) is no account here: it stays with that company, its orders, addresses, basket and wishlist
 * the company's, and the registration makes a new company and account as for anyone. Two at once
 * make one: the second account insert hits the live-account index, and the retry takes the first
 * up as the contact's own registration.
 */
export async function registerBusiness(trx: Db, context: AccountsContext, form: BusinessRegistrationForm, now: number): Promise<void> {
  const { config, storeCode, language } = context;
  const { userId } = await findOrCreateContact(trx, form, language, now);
  const existing = (await accountsOfUser(trx, userId)).find((a) => a.store_code === storeCode && a.type === 'BUSINESS' && isLiveAccount(a));
  if (existing && !(await isOwnPendingRegistration(trx, existing))) return;
  const status = config.accounts.businessApprovalStores.includes(storeCode) ? 'PENDING_APPROVAL' : 'PENDING_CONFIRMATION';
  let accountId: number;
  if (existing && existing.company_id !== null) {
    // Not confirmed yet: the newest form describes the company, and it is decided and confirmed afresh.
    await updateCompany(trx, existing.company_id, companyValues(form));
    await changeAccountStatus(trx, existing.id, [existing.status], status);
    accountId = existing.id;
  } else {
    const companyId = await insertCompany(trx, companyValues(form), now);
    accountId = (await createClientAccount(trx, { userId, storeCode, type: 'BUSINESS', companyId, status }, now)).id;
  }
  if (status === 'PENDING_CONFIRMATION') {
    await queueAccountMail(trx, config, { kind: 'verification', userId, clientAccountId: accountId, language }, now);
  }
  const pending = status === 'PENDING_APPROVAL' ? { pendingAccountId: accountId } : {};
  await queueAccountMail(trx, config, { ...backofficeMail('BUSINESS', storeCode, form), ...pending }, now);
}

/** The states of a business registration that its contact has not taken up (or the back office turned down). */
const REGISTRATION_STATUSES: readonly string[] = ['PENDING_CONFIRMATION', 'PENDING_APPROVAL', 'REJECTED'];

/** Whether the account is an earlier business registration not yet in use: a master, alone in its company, never active. */
async function isOwnPendingRegistration(trx: Db, account: ClientAccountRow): Promise<boolean> {
  if (!REGISTRATION_STATUSES.includes(account.status) || account.role !== 'company_master' || account.company_id === null) return false;
  return (await companyAccountCount(trx, account.company_id)) === 1;
}

/**
 * A wholesale registration is a request for the back office to approve
 * (`storefront wholesale approve|reject <id>`). Wholesale customers buy in the main store
 * (they cannot log in to WEB2), so the request is recorded for WEB whichever store it came from.
 * The same rows are written whether or not the email is known. The same form again within the
 * resubmit window (a double click, a retry) records nothing more: the back office would get the
 * application, and its mail, twice.
 */
export async function registerWholesale(trx: Db, context: AccountsContext, form: WholesaleRegistrationForm, now: number): Promise<void> {
  const { config, language } = context;
  refuseReservedEmail('contact.email', form.contact.email);
  const storeCode = 'WEB';
  if (!(await isFirstSubmission(trx, submissionKey('wholesale-registration', [form, language]), now))) return;
  const requestId = await insertWholesaleRequest(trx, {
    store_code: storeCode,
    email: normaliseEmail(form.contact.email),
    company_name: form.companyName,
    form: JSON.stringify(form),
    language,
    status: 'PENDING',
    client_account_id: null,
    created_at: now,
    decided_at: null,
  });
  await queueAccountMail(trx, config, { ...backofficeMail('WHOLESALE', storeCode, form), requestId }, now);
}

export async function findOrCreateContact(
  trx: Db,
  form: BusinessRegistrationForm,
  language: Language,
  now: number,
): Promise<{ userId: number; verified: boolean }> {
  const user = await findPersonByEmail(trx, form.contact.email);
  if (user) return { userId: user.id, verified: Boolean(user.email_verified) };
  const userId = await insertUser(
    trx,
    {
      email: form.contact.email,
      first_name: form.contact.firstName,
      last_name: form.contact.lastName,
      phone: form.contact.phone,
      language,
    },
    now,
  );
  return { userId, verified: false };
}

export function companyValues(form: BusinessRegistrationForm) {
  return {
    name: form.companyName,
    registry_code: form.registryCode,
    vat_number: form.vatNumber ?? null,
    street: form.address.street,
    city: form.address.city,
    postcode: form.address.postcode,
    country_code: form.address.countryCode,
  };
}

function backofficeMail(registration: Extract<AccountType, 'BUSINESS' | 'WHOLESALE'>, storeCode: string, form: BusinessRegistrationForm) {
  return {
    kind: 'backoffice' as const,
    registration,
    storeCode,
    companyName: form.companyName,
    registryCode: form.registryCode,
    contactEmail: form.contact.email,
  };
}
