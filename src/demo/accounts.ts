import type { Batch, IdBase } from './batch.js';
import { push } from './batch.js';
import { normaliseEmail } from '../infra/email-address.js';
import { FIRST_NAMES, LAST_NAMES, fullName, isFemaleName, type Origin } from './people-names.js';
import type { Random } from './random.js';

// Demo users: a few that can log in with the documented demo password (README, "Demo data"),
// and "shoppers" without a password whose accounts, ratings, orders and clicks fill the export
// collections. Client codes follow the accounts module: W and the zero-padded account id.

export const DEMO_PASSWORD = 'raamatukoi-2026';

interface LoginUser {
  email: string;
  firstName: string;
  lastName: string;
  language: 'et' | 'en' | 'ru';
  stores: ReadonlyArray<'WEB' | 'WEB2'>;
  business?: boolean;
  discountPercent?: number;
}

/** The demo logins (documented in README.md). */
export const DEMO_LOGINS: readonly LoginUser[] = [
  { email: 'mari@example.com', firstName: 'Mari', lastName: 'Tamm', language: 'et', stores: ['WEB', 'WEB2'] },
  { email: 'john@example.com', firstName: 'John', lastName: 'Smith', language: 'en', stores: ['WEB'], discountPercent: 5 },
  { email: 'olga@example.com', firstName: 'Ольга', lastName: 'Смирнова', language: 'ru', stores: ['WEB'] },
  { email: 'business@example.com', firstName: 'Kalle', lastName: 'Kask', language: 'et', stores: ['WEB'], business: true },
];

export interface DemoClient {
  accountId: number;
  code: string;
  storeCode: 'WEB' | 'WEB2';
  business: boolean;
  firstName: string;
  language: 'et' | 'en' | 'ru';
  city: string;
}

const CITIES = [
  'Tallinn',
  'Tallinn',
  'Tallinn',
  'Tartu',
  'Tartu',
  'Pärnu',
  'Narva',
  'Viljandi',
  'Rakvere',
  'Kuressaare',
  'Haapsalu',
  'Jõhvi',
  'Maardu',
  'Keila',
];
const LANGUAGE_OF: Record<Origin, 'et' | 'en' | 'ru'> = { ET: 'et', EN: 'en', RU: 'ru', OTHER: 'en' };

export interface AccountOptions {
  now: number;
  passwordHash: string;
  shoppers: number;
  /** Emails that already exist: those users are left alone and get no demo activity. */
  existingEmails: ReadonlySet<string>;
}

/** Users, the demo company and client accounts; returns the accounts that get demo activity. */
export function accountRows(random: Random, ids: IdBase, batch: Batch, options: AccountOptions): DemoClient[] {
  const { now } = options;
  let userId = ids.app_user;
  let accountId = ids.client_account;
  const clients: DemoClient[] = [];
  // The newsletter flag of a user is "subscribed in some store"; the profile's consent and the
  // newsletter lists read the subscriptions, one per store: a flagged user is subscribed in the
  // store of each of its accounts, consented when it registered.
  const subscribers = new Map<number, { email: string; language: string; created: number; stores: Set<string> }>();
  const addAccount = (
    user: number,
    storeCode: 'WEB' | 'WEB2',
    type: 'SIMPLE' | 'BUSINESS',
    companyId: number | null,
    discount: number,
    created: number,
  ) => {
    const id = accountId++;
    const code = `W${String(id).padStart(8, '0')}`;
    push(batch, 'client_account', {
      id,
      code,
      user_id: user,
      store_code: storeCode,
      type,
      company_id: companyId,
      role: type === 'BUSINESS' ? 'company_master' : 'customer',
      discount_percent: discount,
      created_at: created,
      updated_at: created,
    });
    const subscriber = subscribers.get(user);
    if (subscriber !== undefined && !subscriber.stores.has(storeCode)) {
      subscriber.stores.add(storeCode);
      push(batch, 'newsletter_subscriber', {
        email: subscriber.email,
        store_code: storeCode,
        language: subscriber.language,
        source: 'registration',
        consented_at: subscriber.created,
        withdrawn_at: null,
        created_at: subscriber.created,
        updated_at: subscriber.created,
      });
    }
    return { id, code };
  };
  const addUser = (
    email: string,
    first: string,
    last: string,
    language: string,
    hash: string | null,
    created: number,
    extra: { gender?: string | null; birthday?: string | null } = {},
  ) => {
    const id = userId++;
    push(batch, 'app_user', {
      id,
      email,
      password_hash: hash,
      email_verified: true,
      activated_at: created,
      first_name: first,
      last_name: last,
      phone: `+372 5${String(1000000 + ((id * 7919) % 8999999)).slice(-7)}`,
      birthday: extra.birthday ?? null,
      gender: extra.gender ?? null,
      newsletter: id % 3 === 0,
      terms_accepted_at: created,
      language,
      created_at: created,
      updated_at: created,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      reset_token_hash: null,
      reset_expires_at: null,
    });
    if (id % 3 === 0) subscribers.set(id, { email: normaliseEmail(email), language, created, stores: new Set() });
    return id;
  };

  for (const login of DEMO_LOGINS) {
    if (options.existingEmails.has(login.email)) continue;
    const created = now - 400 * DAY;
    const user = addUser(login.email, login.firstName, login.lastName, login.language, options.passwordHash, created, {
      gender: isFemaleName(login.firstName) ? 'FEMALE' : 'MALE',
    });
    let companyId: number | null = null;
    if (login.business) {
      companyId = ids.company;
      push(batch, 'company', {
        id: companyId,
        name: 'Demo Raamatupidamine OÜ',
        registry_code: '12345678',
        vat_number: 'EE101234567',
        street: 'Narva mnt 5',
        city: 'Tallinn',
        postcode: '10117',
        country_code: 'EE',
        discount_percent: 10,
        created_at: created,
      });
    }
    for (const store of login.stores) {
      const account = addAccount(user, store, login.business ? 'BUSINESS' : 'SIMPLE', companyId, login.discountPercent ?? 0, created);
      clients.push({
        accountId: account.id,
        code: account.code,
        storeCode: store,
        business: Boolean(login.business),
        firstName: login.firstName,
        language: login.language,
        city: 'Tallinn',
      });
    }
  }

  for (let i = 1; i <= options.shoppers; i++) {
    const email = `shopper${String(i).padStart(4, '0')}@example.com`;
    if (options.existingEmails.has(email)) continue;
    const origin = random.weighted<Origin>([
      ['ET', 6],
      ['RU', 3],
      ['EN', 1],
    ]);
    const first = random.pick(FIRST_NAMES[origin]);
    const last = fullName(origin, first, random.pick(LAST_NAMES[origin])).slice(first.length + 1);
    // Older than the demo orders (the last 180 days), which they place.
    const created = now - random.int(185, 1000) * DAY;
    const birthYear = random.int(1950, 2006);
    const user = addUser(email, first, last, LANGUAGE_OF[origin], null, created, {
      gender: random.chance(0.15) ? null : isFemaleName(first) ? 'FEMALE' : 'MALE',
      birthday: random.chance(0.3)
        ? null
        : `${birthYear}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`,
    });
    const city = random.pick(CITIES);
    const stores: Array<'WEB' | 'WEB2'> = random.chance(0.92) ? ['WEB'] : [];
    if (stores.length === 0 || random.chance(0.2)) stores.push('WEB2');
    for (const store of stores) {
      const account = addAccount(user, store, 'SIMPLE', null, random.chance(0.05) ? 3 : 0, created);
      clients.push({
        accountId: account.id,
        code: account.code,
        storeCode: store,
        business: false,
        firstName: first,
        language: LANGUAGE_OF[origin],
        city,
      });
    }
  }
  ids.app_user = userId;
  ids.client_account = accountId;
  ids.company += 1;
  return clients;
}

export const DAY = 86_400_000;
