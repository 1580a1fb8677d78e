import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { systemClock } from '../../src/infra/clock.js';
import { call, companyMaster } from '../companies/fixtures.js';
import { exportUser } from '../data-export/fixtures.js';
import { card } from '../gift-cards/helpers.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { confirm, confirmationMailTo, newsletterToken, subscribe } from '../newsletter/helpers.js';

// The bar: secrets and tokens are hashed at rest. Each module's own tests check its own table;
// this test walks the flows that hand a secret out (passwords, access tokens, the links mailed for
// verification, reset, email change, newsletter and invitations, operator keys, feed tokens,
// export passwords, gift-card codes), collects every secret the API answered or mailed, and then
// reads every row of every table, so a copy kept anywhere else (a job's payload, a resubmit
// record, a rate-limit key, a log table) fails too.

/** Secrets kept as they are on purpose, by table and column, with the reason. */
const KEPT: Record<string, string> = {
  // An HMAC is checked by computing it, so the supplier's signing secret must be readable
  // (integrations/suppliers.service.ts); it is shown once and rotated with `supplier rotate`.
  'supplier.secret': 'supplier signing secret',
};

const NEW_PASSWORD = 'Kuusk-sosistab-tuules-77';
const THIRD_PASSWORD = 'Kask-kahiseb-kaugel-31';
/** Values shorter than this are not taken for secrets (ids, codes, dates). */
const MIN_SECRET = 16;

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

class Secrets {
  readonly found = new Map<string, string>();
  add(label: string, value: string | undefined): void {
    expect(value, label).toBeTypeOf('string');
    expect(value!.length, `${label}: ${value}`).toBeGreaterThanOrEqual(MIN_SECRET);
    this.found.set(value!, label);
  }
  /** Every field of a JSON answer that is named like a credential. */
  fromAnswer(label: string, response: LightMyRequestResponse): void {
    expect(response.statusCode, `${label}: ${response.body}`).toBeLessThan(300);
    walk(response.json(), (key, value) => {
      if (/token|secret|password|key/i.test(key) && value.length >= MIN_SECRET) this.found.set(value, `${label} (${key})`);
    });
  }
  /** Every query value of every link in the mails caught so far. */
  fromMails(): void {
    for (const mail of t.smtp.mails) {
      for (const link of `${mail.text ?? ''} ${mail.html || ''}`.match(/https?:\/\/[^\s"'<>]+/g) ?? []) {
        const url = new URL(link.replace(/&amp;/g, '&'));
        for (const [name, value] of url.searchParams) {
          // An address in a link (who the link is for) is no secret.
          if (value.length >= MIN_SECRET && !value.includes('@')) this.found.set(value, `mail "${mail.subject}" link (${name})`);
        }
      }
    }
  }
}

function walk(value: unknown, visit: (key: string, value: string) => void, key = ''): void {
  if (typeof value === 'string') visit(key, value);
  else if (Array.isArray(value)) value.forEach((item) => walk(item, visit, key));
  else if (value !== null && typeof value === 'object') for (const [name, item] of Object.entries(value)) walk(item, visit, name);
}

/** Every cell of every table as text (blobs as UTF-8 and as hex), with where it is. */
async function everyCell(): Promise<Array<{ where: string; text: string }>> {
  const db = t.database.db;
  const tables = (await db.introspection.getTables()).map((table) => table.name).filter((name) => !name.startsWith('sqlite_'));
  expect(tables.length).toBeGreaterThan(100);
  const cells: Array<{ where: string; text: string }> = [];
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') continue;
        const where = `${table}.${column}`;
        if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
          const bytes = Buffer.from(value);
          cells.push({ where, text: bytes.toString('utf8') }, { where, text: bytes.toString('hex') });
        } else cells.push({ where, text: typeof value === 'string' ? value : JSON.stringify(value) });
      }
    }
  }
  return cells;
}

/** Where each secret is kept as it is (in any letter case), apart from KEPT. */
async function secretsAtRest(secrets: Map<string, string>): Promise<string[]> {
  const cells = (await everyCell()).map((cell) => ({ ...cell, text: cell.text.toLowerCase() }));
  const findings: string[] = [];
  for (const [secret, label] of secrets) {
    const needle = secret.toLowerCase();
    for (const cell of cells) {
      if (cell.text.includes(needle) && KEPT[cell.where] !== label) findings.push(`${label} in ${cell.where}`);
    }
  }
  return findings;
}

describe('secrets at rest', () => {
  it('keeps no password, token, key or code that the API handed out, in any table', async () => {
    const secrets = new Secrets();
    const db = t.database.db;

    // A shopper: registration and verification (the password is set there), login, a password
    // reset, an email change and a password change.
    const email = uniqueEmail('secrets');
    secrets.add('password', GOOD_PASSWORD);
    const access = await registerVerified(t, email);
    secrets.add('access token from verification', access);
    secrets.fromAnswer('login', await login(t, email));

    expect(
      (await t.app.inject({ method: 'POST', url: '/auth/reset-password', headers: { store: 'WEB' }, payload: { email } })).statusCode,
    ).toBe(200);
    const resetToken = tokenFromMail(await mailTo(t, email, /parool|password|пароль/i), 'passwordResetToken');
    secrets.add('new password (reset)', NEW_PASSWORD);
    const reset = await t.app.inject({
      method: 'POST',
      url: `/auth/set-new-password?passwordResetToken=${encodeURIComponent(resetToken)}`,
      headers: { store: 'WEB' },
      payload: { password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
    });
    secrets.fromAnswer('set-new-password', reset);
    const afterReset = (await login(t, email, NEW_PASSWORD)).json().accessToken as string;
    secrets.add('access token after reset', afterReset);

    const newEmail = uniqueEmail('secrets-new');
    const asked = await call(t, 'PUT', '/user/me', afterReset, { email: newEmail, currentPassword: NEW_PASSWORD });
    expect(asked.statusCode, asked.body).toBe(200);
    const changeToken = /[?&]token=([A-Za-z0-9_-]+)/.exec((await mailTo(t, newEmail)).text ?? '')?.[1];
    secrets.add('email change link', changeToken);
    secrets.fromAnswer('confirm-email', await call(t, 'POST', '/user/me/confirm-email', afterReset, { token: changeToken }));
    secrets.add('new password (change)', THIRD_PASSWORD);
    const changed = await call(t, 'PUT', '/user/me', afterReset, {
      currentPassword: NEW_PASSWORD,
      newPassword: THIRD_PASSWORD,
      newPasswordRepeat: THIRD_PASSWORD,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    secrets.fromAnswer('login with the changed password', await login(t, newEmail, THIRD_PASSWORD));

    // A guest's newsletter subscription (double opt-in).
    const reader = uniqueEmail('secrets-news');
    expect((await subscribe(t, { email: reader, language: 'et' }, { store: 'WEB' })).statusCode).toBe(200);
    const newsletterLink = newsletterToken(await confirmationMailTo(t, reader));
    secrets.add('newsletter confirmation link', newsletterLink);
    expect((await confirm(t, newsletterLink)).statusCode).toBe(200);

    // A company's invitation of an employee, who sets a password through the verification link.
    const master = await companyMaster(t, 'BUSINESS');
    const employee = uniqueEmail('secrets-employee');
    const invited = await call(t, 'POST', '/company-user', master.token, {
      email: employee,
      firstName: 'Tiit',
      lastName: 'Töötaja',
      role: 'EMPLOYEE',
    });
    expect(invited.statusCode, invited.body).toBe(200);
    secrets.fromAnswer('verification of an invitation', await verify(t, tokenFromMail(await mailTo(t, employee), 'verificationToken')));

    // Credentials the operator hands out: an operator key, an event-feed token, a supplier's
    // signing secret and an export user's password.
    secrets.add('operator API key', await createApiKey(db, 'secrets-at-rest', Date.now()));
    const printed: string[] = [];
    await eventFeedCommand({ db, clock: systemClock }, ['add', 'secrets-at-rest'], (line) => printed.push(line));
    secrets.add('event feed token', printed.at(-1));
    const supplierSecret = await addSupplier(db, 'SECRETS', 'Secret Books', Date.now());
    secrets.add('supplier signing secret', supplierSecret);
    secrets.add('export password', (await exportUser(db)).password);

    // A gift card's code, imported, asked for its balance and put in a basket.
    const code = await card(t, 25);
    secrets.add('gift card code', code);
    secrets.add('gift card code, as typed', code.replace(/[\s-]/g, ''));
    expect((await t.app.inject({ method: 'GET', url: `/virtual-gift-card/balance?code=${encodeURIComponent(code)}` })).statusCode).toBe(
      200,
    );
    expect((await call(t, 'POST', '/basket/add-gift-card', master.token, { code })).statusCode).toBeLessThan(300);

    // The links of every mail sent (unsubscribe links included), once the outbox has run.
    await t.drainJobs();
    secrets.fromMails();
    expect(secrets.found.size).toBeGreaterThan(15);

    expect(await secretsAtRest(secrets.found)).toEqual([]);
    // The supplier's secret is where KEPT says, so the reading of the tables finds what is there.
    const kept = (await everyCell()).filter((cell) => cell.text === supplierSecret);
    expect(kept.map((cell) => cell.where)).toEqual(['supplier.secret']);
  }, 60_000);
});
