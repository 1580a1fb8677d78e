import type { Kysely } from 'kysely';
import type { AccountType, Database } from '../../src/db/schema.js';
import { newToken } from '../../src/infra/tokens.js';

let sequence = 0;

export interface TestCustomer {
  token: string;
  clientCode: string;
  clientAccountId: number;
  companyId: number | null;
}

/**
 * A verified user with one client account of the given kind and a valid access token, written
 * straight to the tables (the account flows have their own tests); for catalogue tests that need
 * a retail, business or wholesale caller. With `ofUser`, another client account of that customer's
 * user (one person's retail and business accounts, one login email).
 */
export async function createCustomer(
  db: Kysely<Database>,
  options: {
    kind?: AccountType;
    store?: string;
    discountPercent?: number;
    companyDiscountPercent?: number;
    firstName?: string | null;
    lastName?: string | null;
    ofUser?: Pick<TestCustomer, 'clientAccountId'>;
    /** When the account and its hour-long token are made: the app's clock, when a test moves it far from the system's. */
    now?: number;
  } = {},
): Promise<TestCustomer> {
  sequence += 1;
  const now = options.now ?? Date.now();
  const kind = options.kind ?? 'SIMPLE';
  const user = options.ofUser ? { id: await userIdOf(db, options.ofUser) } : await newUser(db, options, now);
  const company =
    kind === 'SIMPLE'
      ? null
      : await db
          .insertInto('company')
          .values({
            name: `Firma ${sequence} OÜ`,
            registry_code: `1000${sequence}`,
            vat_number: null,
            street: 'Rüütli 2',
            city: 'Tartu',
            postcode: '51007',
            country_code: 'EE',
            discount_percent: options.companyDiscountPercent ?? 0,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
  const clientCode = `WT${now.toString().slice(-6)}${sequence}`;
  const account = await db
    .insertInto('client_account')
    .values({
      code: clientCode,
      user_id: user.id,
      store_code: options.store ?? 'WEB',
      type: kind,
      company_id: company?.id ?? null,
      role: kind === 'SIMPLE' ? 'customer' : 'master',
      discount_percent: options.discountPercent ?? 0,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { token, hash } = newToken();
  await db
    .insertInto('access_token')
    .values({
      token_hash: hash,
      user_id: user.id,
      client_account_id: account.id,
      store_code: options.store ?? 'WEB',
      role: kind,
      created_at: now,
      expires_at: now + 3_600_000,
      login_method: 'password',
      native_form: null,
    })
    .execute();
  return { token, clientCode, clientAccountId: account.id, companyId: company?.id ?? null };
}

/** A verified user, as createCustomer makes one. */
function newUser(db: Kysely<Database>, options: { firstName?: string | null; lastName?: string | null }, now: number) {
  return db
    .insertInto('app_user')
    .values({
      email: `customer${sequence}.${now.toString(36)}@example.ee`,
      password_hash: null,
      email_verified: true,
      activated_at: now,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      reset_token_hash: null,
      reset_expires_at: null,
      first_name: options.firstName === undefined ? 'Mari' : options.firstName,
      last_name: options.lastName === undefined ? 'Maasikas' : options.lastName,
      phone: null,
      birthday: null,
      gender: null,
      newsletter: false,
      terms_accepted_at: now,
      language: 'et',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** A business customer made an employee of `master`'s company (their own company is left without them). */
export async function createEmployee(db: Kysely<Database>, master: TestCustomer): Promise<TestCustomer> {
  const employee = await createCustomer(db, { kind: 'BUSINESS' });
  await db
    .updateTable('client_account')
    .set({ company_id: master.companyId, role: 'company_employee' })
    .where('id', '=', employee.clientAccountId)
    .execute();
  return { ...employee, companyId: master.companyId };
}

/** A shipping address as POST /client-account/address takes it. */
export const SHIPPING_ADDRESS = {
  kind: 'SHIPPING',
  name: 'Mari Maasikas',
  phone: '+372 5555 5555',
  address: 'Rüütli 2',
  city: 'Tartu',
  postcode: '51007',
  countryNavCode: 'EE',
} as const;

/** The customer's user (the person their client account belongs to). */
export async function userIdOf(db: Kysely<Database>, customer: Pick<TestCustomer, 'clientAccountId'>): Promise<number> {
  const row = await db.selectFrom('client_account').select('user_id').where('id', '=', customer.clientAccountId).executeTakeFirstOrThrow();
  return Number(row.user_id);
}

/** The customer's login email: their user's (the address their mails go to). */
export async function emailOf(db: Kysely<Database>, customer: Pick<TestCustomer, 'clientAccountId'>): Promise<string> {
  const row = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select('app_user.email')
    .where('client_account.id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
  return row.email;
}
