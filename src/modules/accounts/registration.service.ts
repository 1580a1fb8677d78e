import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { AccountType, Database } from '../../db/schema.js';
import { fieldError } from '../../http/errors.js';
import type { Language } from '../../i18n/index.js';
import type { StoreSettings } from '../store/store.service.js';
import { queueAccountMail } from './accounts.jobs.js';
import {
  accountsOfUser,
  createClientAccount,
  findUserByEmail,
  insertCompany,
  insertUser,
  isUniqueViolation,
  normaliseEmail,
  type Db,
} from './accounts.repository.js';
import type { BusinessRegistrationForm, SimpleRegistrationForm, WholesaleRegistrationForm } from './accounts.schemas.js';

export interface AccountsDeps {
  db: Kysely<Database>;
  config: Config;
}

interface RequestContext {
  store: StoreSettings;
  language: Language;
  now: number;
}

/**
 * Simple registration, the same for the web and the mobile scenario. Every outcome of the
 * spec's state table answers alike, so the response never tells whether the email was known.
 */
export async function registerSimple(deps: AccountsDeps, context: RequestContext, form: SimpleRegistrationForm): Promise<void> {
  checkBirthday(form.birthday, context.language);
  await inTransactionRetryingOnUniqueViolation(deps.db, async (trx) => {
    const { store, language, now } = context;
    const user = await findUserByEmail(trx, form.email);
    if (!user) {
      const userId = await insertUser(
        trx,
        {
          email: form.email,
          first_name: form.firstName ?? null,
          last_name: form.lastName ?? null,
          phone: form.phone ?? null,
          birthday: form.birthday ?? null,
          gender: form.gender ?? null,
          newsletter: form.newsletter ?? false,
          language,
        },
        now,
      );
      const account = await createClientAccount(trx, { userId, storeCode: store.code, type: 'SIMPLE' }, now);
      await queueAccountMail(trx, deps.config, { kind: 'verification', userId, clientAccountId: account.id, language }, now);
      return;
    }
    const accounts = await accountsOfUser(trx, user.id);
    const simpleHere = accounts.find((a) => a.type === 'SIMPLE' && a.store_code === store.code);
    const simpleElsewhere = accounts.find((a) => a.type === 'SIMPLE' && a.store_code !== store.code);
    if (Boolean(user.email_verified) && simpleHere) return;
    if (Boolean(user.email_verified) && simpleElsewhere) {
      await queueAccountMail(
        trx,
        deps.config,
        { kind: 'otherStore', userId: user.id, storeCode: store.code, otherStoreCode: simpleElsewhere.store_code, language },
        now,
      );
      return;
    }
    // Not activated yet (mail again), or a user without a simple account here (create it, mail).
    const account = simpleHere ?? (await createClientAccount(trx, { userId: user.id, storeCode: store.code, type: 'SIMPLE' }, now));
    await queueAccountMail(trx, deps.config, { kind: 'verification', userId: user.id, clientAccountId: account.id, language }, now);
  });
}

/** A company and its business account in this store; the contact person gets the verification mail. */
export async function registerBusiness(deps: AccountsDeps, context: RequestContext, form: BusinessRegistrationForm): Promise<void> {
  await inTransactionRetryingOnUniqueViolation(deps.db, async (trx) => {
    const { store, language, now } = context;
    const { userId, verified } = await findOrCreateContact(trx, form, language, now);
    const accounts = await accountsOfUser(trx, userId);
    if (accounts.some((a) => a.type === 'BUSINESS' && a.store_code === store.code)) return;
    const companyId = await insertCompany(trx, companyValues(form), now);
    const account = await createClientAccount(trx, { userId, storeCode: store.code, type: 'BUSINESS', companyId }, now);
    if (!verified) {
      await queueAccountMail(trx, deps.config, { kind: 'verification', userId, clientAccountId: account.id, language }, now);
    }
    await queueAccountMail(trx, deps.config, backofficeMail('BUSINESS', store.code, form), now);
  });
}

/**
 * A wholesale registration is a request for the back office to approve
 * (`storefront wholesale approve|reject <id>`). Wholesale customers buy in the main store
 * (they cannot log in to WEB2), so the request is recorded for WEB whichever store it came from.
 */
export async function registerWholesale(deps: AccountsDeps, context: RequestContext, form: WholesaleRegistrationForm): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const { language, now } = context;
    const storeCode = 'WEB';
    const row = await trx
      .insertInto('wholesale_request')
      .values({
        store_code: storeCode,
        email: normaliseEmail(form.contact.email),
        company_name: form.companyName,
        form: JSON.stringify(form),
        language,
        status: 'PENDING',
        client_account_id: null,
        created_at: now,
        decided_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await queueAccountMail(trx, deps.config, { ...backofficeMail('WHOLESALE', storeCode, form), requestId: Number(row.id) }, now);
  });
}

export async function findOrCreateContact(
  trx: Db,
  form: BusinessRegistrationForm,
  language: Language,
  now: number,
): Promise<{ userId: number; verified: boolean }> {
  const user = await findUserByEmail(trx, form.contact.email);
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

function checkBirthday(birthday: string | undefined, language: Language): void {
  if (birthday === undefined) return;
  if (birthday < '1900-01-01' || birthday >= new Date().toISOString().slice(0, 10)) {
    throw fieldError('birthday', language, 'birthday.range');
  }
}

/**
 * Two registrations of one new email can race on PostgreSQL: both see no user, one insert wins
 * the unique index. The loser runs again and then takes the "user exists" path, so one user results.
 */
async function inTransactionRetryingOnUniqueViolation(db: Kysely<Database>, work: (trx: Db) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.transaction().execute(work);
      return;
    } catch (error) {
      if (attempt >= 3 || !isUniqueViolation(error)) throw error;
    }
  }
}
