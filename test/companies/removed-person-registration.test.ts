import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessCommand } from '../../src/modules/accounts/index.js';
import { hashToken } from '../../src/infra/tokens.js';
import { createJobRunner } from '../../src/worker.js';
import {
  BACKOFFICE,
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailsTo,
  mailTo,
  me,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { acceptInvitation, call, companyMaster, invite, seenBy, useAccount } from './fixtures.js';

// A person a company removed registers a business of their own (or a retail account). The removed
// account is the company's that removed them, with the orders placed for it, its delivery
// addresses, basket and wishlist; it stays so. The registration is that of a new business customer:
// a new company and a new account, confirmed by the contact's link (and in an approval store
// approved by the back office first). Before, the worker found the removed account, took it for the
// person's business account in the store and did nothing: no company, no account, no mail.

let t: AccountsTestApp;
let shop: Shop;
let book: number;
beforeAll(async () => {
  t = await createAccountsTestApp();
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 1000);
});
afterAll(() => t.close());

let forms = 0;
function businessForm(email: string) {
  forms += 1;
  return {
    companyName: `Oma Firma ${forms} OÜ`,
    registryCode: String(77000000 + forms),
    address: { street: 'Uus 1', city: 'Tartu', postcode: '51004', countryCode: 'EE' },
    contact: { firstName: 'Tiit', lastName: 'Töötaja', email, phone: '+3725550101' },
  };
}
type BusinessForm = ReturnType<typeof businessForm>;

const ok = async (response: Promise<LightMyRequestResponse>, status = 200) => {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer;
};

const postBusiness = (app: AccountsTestApp, form: BusinessForm) =>
  app.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store: 'WEB' }, payload: form });

/** Every client account of the email, oldest first, as stored. */
const accountsOf = (app: AccountsTestApp, email: string) =>
  app.database.db
    .selectFrom('client_account as a')
    .innerJoin('app_user as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.code', 'a.type', 'a.store_code', 'a.company_id', 'a.role', 'a.status', 'a.created_at'])
    .where('u.email', '=', email)
    .orderBy('a.id')
    .execute();

const companyRow = (app: AccountsTestApp, id: number | null) =>
  app.database.db.selectFrom('company').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();

const companiesWithCode = async (app: AccountsTestApp, codes: string[]) =>
  Number(
    (
      await app.database.db
        .selectFrom('company')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('registry_code', 'in', codes)
        .executeTakeFirstOrThrow()
    ).n,
  );

type CompanyUser = { id: number; clientCode: string; email: string };
const usersOf = async (app: AccountsTestApp, token: string) =>
  (await ok(call(app, 'GET', '/company-user?per-page=100', token))).json() as CompanyUser[];

/**
 * A person company A invited and removed: `worked` accepted first (so has a password) and used the
 * account (an order, an address, a wishlist and a basket line on A's account); `invited` was
 * removed before taking the invitation up.
 */
async function removedFromA(app: AccountsTestApp, how: 'worked' | 'invited', withShop?: { shop: Shop; book: number }) {
  const a = await companyMaster(app, 'BUSINESS', 10);
  const email = uniqueEmail(`removed-${how}`);
  const atA = await invite(app, a.token, email);
  let orderAtA: string | undefined;
  let seenAtA: Awaited<ReturnType<typeof seenBy>> | undefined;
  if (how === 'worked') {
    const token = await acceptInvitation(app, email);
    if (withShop) {
      orderAtA = await useAccount(app, withShop.shop, withShop.book, token, 'Esimese firma tänav 1');
      seenAtA = await seenBy(app, token);
    }
  }
  await ok(call(app, 'DELETE', `/company-user/${atA.id}`, a.token));
  await app.drainJobs();
  const [removed] = await accountsOf(app, email);
  expect(removed).toMatchObject({ id: atA.id, status: 'REMOVED' });
  return { a, email, atA, removed: removed!, orderAtA, seenAtA, companyOfA: await companyRow(app, removed!.company_id) };
}

describe('a business registration of a person a company removed', () => {
  for (const how of ['worked', 'invited'] as const) {
    it(`(${how === 'worked' ? 'who worked there' : 'removed before accepting'}) makes a new company and account; the removed one stays the company's, unseen`, async () => {
      const x = await removedFromA(t, how, { shop, book });
      const usersOfA = await usersOf(t, x.a.token);
      const form = businessForm(x.email);

      // The answer is the form, as for anyone's registration.
      const answer = await ok(postBusiness(t, form));
      expect(answer.json()).toEqual(form);
      await t.drainJobs();

      const [removed, made, ...more] = await accountsOf(t, x.email);
      expect(more).toEqual([]);
      expect(removed).toEqual(x.removed);
      expect(made).toMatchObject({ type: 'BUSINESS', store_code: 'WEB', role: 'company_master', status: 'PENDING_CONFIRMATION' });
      expect(made!.code).not.toBe(x.atA.clientCode);
      expect(made!.company_id).not.toBe(x.removed.company_id);
      expect(await companyRow(t, made!.company_id)).toMatchObject({ name: form.companyName, registry_code: form.registryCode });
      expect(await companyRow(t, x.removed.company_id)).toEqual(x.companyOfA);
      expect(await usersOf(t, x.a.token)).toEqual(usersOfA);

      // The contact is mailed the link (a person with a password is asked to confirm the company's
      // account), and the back office is told, as for any business registration.
      const subject =
        how === 'worked' ? `Kinnitage ärikliendi konto: ${form.companyName} – Main store` : 'Kinnitage oma e-posti aadress – Main store';
      const mail = await mailTo(t, x.email, new RegExp(subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      await mailTo(t, BACKOFFICE, new RegExp(`New business registration: ${form.companyName} \\(WEB\\)`));

      // Not usable before the link; the removed account is not usable at all.
      if (how === 'worked') expect(expectFieldErrors(await login(t, x.email))).toEqual(['web_store_nav_code']);
      const verified = await ok(verify(t, tokenFromMail(mail, 'verificationToken')));
      expect((await ok(me(t, verified.json().accessToken))).json()).toMatchObject({
        clientCode: made!.code,
        role: 'BUSINESS',
        roles: ['BUSINESS'],
      });
      const token = (await ok(login(t, x.email))).json().accessToken as string;

      // The new account has none of A's things, and A's order is not theirs to open.
      expect(await seenBy(t, token)).toEqual({ clientCode: made!.code, orders: [], addresses: [], wishlist: 0, basketLines: 0 });
      if (x.orderAtA) expectErrorBody(await call(t, 'GET', `/order/${x.orderAtA}`, token), 404, 'Not Found');
      // They are the master of their own company, alone in it.
      expect((await usersOf(t, token)).map((user) => user.clientCode)).toEqual([made!.code]);

      // A's account is as it was, its order still its own, and A's list as before.
      expect((await accountsOf(t, x.email))[0]).toEqual(x.removed);
      if (x.orderAtA) {
        const order = await t.database.db
          .selectFrom('customer_order')
          .select('client_account_id')
          .where('code', '=', x.orderAtA)
          .executeTakeFirstOrThrow();
        expect(Number(order.client_account_id)).toBe(x.atA.id);
      }
      expect(await usersOf(t, x.a.token)).toEqual(usersOfA);
      // A invites a person with a business account in use here: a 409, as for any such person.
      expectErrorBody(
        await call(t, 'POST', '/company-user', x.a.token, { email: x.email, firstName: 'T', lastName: 'T', role: 'EMPLOYEE' }),
        409,
        'Conflict',
      );
    });
  }

  it('after removal from the new company too, A still gets its own account back, with its things', async () => {
    const x = await removedFromA(t, 'worked', { shop, book });
    await ok(postBusiness(t, businessForm(x.email)));
    const token = await acceptInvitation(t, x.email);
    const made = (await accountsOf(t, x.email))[1]!;
    // A second master of the new company removes the person from it.
    const colleague = uniqueEmail('colleague');
    await invite(t, token, colleague, 'MASTER');
    const colleagueToken = await acceptInvitation(t, colleague);
    await ok(call(t, 'DELETE', `/company-user/${made.id}`, colleagueToken));

    const backAtA = await invite(t, x.a.token, x.email);
    expect(backAtA).toMatchObject({ id: x.atA.id, clientCode: x.atA.clientCode });
    expect(await seenBy(t, await acceptInvitation(t, x.email))).toEqual(x.seenAtA);
  });

  it('the same form twice at once (a double click) makes one company and one account, and mails once', async () => {
    const x = await removedFromA(t, 'worked');
    const form = businessForm(x.email);
    const mails = mailsTo(t, x.email).length;
    const answers = await Promise.all([postBusiness(t, form), postBusiness(t, form)]);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(answers[1]!.json()).toEqual(answers[0]!.json());
    await t.drainJobs();
    const [, made, ...more] = await accountsOf(t, x.email);
    expect(more).toEqual([]);
    expect(made).toMatchObject({ status: 'PENDING_CONFIRMATION' });
    expect(await companiesWithCode(t, [form.registryCode])).toBe(1);
    expect(mailsTo(t, x.email)).toHaveLength(mails + 1);
  });

  it('two forms at once, applied by two workers at once: one new company and account, no job fails, the newest link works', async () => {
    const other = createJobRunner(t.database, t.config, t.app.log, { clock: t.clock });
    try {
      for (let round = 0; round < 4; round += 1) {
        const x = await removedFromA(t, 'worked');
        const jobsBefore = Number(
          (
            await t.database.db
              .selectFrom('job')
              .select((eb) => eb.fn.max('id').as('id'))
              .executeTakeFirstOrThrow()
          ).id ?? 0,
        );
        const mailsBefore = mailsTo(t, x.email).length;
        const forms = [businessForm(x.email), businessForm(x.email)];
        const answers = await Promise.all(forms.map((form) => postBusiness(t, form)));
        for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
        await Promise.all([t.jobs.worker.drain(), other.worker.drain()]);
        await t.drainJobs();

        const [removed, made, ...more] = await accountsOf(t, x.email);
        expect(removed).toEqual(x.removed);
        expect(more).toEqual([]);
        expect(made).toMatchObject({ type: 'BUSINESS', status: 'PENDING_CONFIRMATION' });
        expect(
          await companiesWithCode(
            t,
            forms.map((form) => form.registryCode),
          ),
        ).toBe(1);
        const jobs = await t.database.db.selectFrom('job').select(['status', 'last_error']).where('id', '>', jobsBefore).execute();
        expect(jobs.length).toBeGreaterThan(0);
        for (const job of jobs) expect(job).toEqual({ status: 'done', last_error: null });

        // Two workers mint and send at once, so the mails may arrive in either order: the link that
        // works is the one minted last (its hash is the user's), and every other one is refused.
        const user = await t.database.db
          .selectFrom('app_user')
          .select('verification_token_hash')
          .where('email', '=', x.email)
          .executeTakeFirstOrThrow();
        const links = mailsTo(t, x.email)
          .slice(mailsBefore)
          .map((mail) => tokenFromMail(mail, 'verificationToken'));
        const newest = links.filter((token) => hashToken(token) === user.verification_token_hash);
        expect(newest).toHaveLength(1);
        for (const stale of links.filter((token) => token !== newest[0])) expectErrorBody(await verify(t, stale), 400, 'Bad Request');
        const verified = await ok(verify(t, newest[0]!));
        expect((await ok(me(t, verified.json().accessToken))).json().clientCode).toBe(made!.code);
      }
    } finally {
      await other.stop();
    }
    // Four rounds of the whole flow: on a loaded machine that is more than the default 20 s.
  }, 60_000);

  it('a second form while the first is unconfirmed describes the new company anew; the removed account stays', async () => {
    const x = await removedFromA(t, 'worked');
    await ok(postBusiness(t, businessForm(x.email)));
    await t.drainJobs();
    const second = businessForm(x.email);
    await ok(postBusiness(t, second));
    await t.drainJobs();
    const [removed, made, ...more] = await accountsOf(t, x.email);
    expect(removed).toEqual(x.removed);
    expect(more).toEqual([]);
    expect((await companyRow(t, made!.company_id)).name).toBe(second.companyName);
  });
});

describe('a retail registration of a person a company removed', () => {
  for (const how of ['worked', 'invited'] as const) {
    it(`(${how === 'worked' ? 'who worked there' : 'removed before accepting'}) makes a retail account as for anyone; the removed one stays the company's`, async () => {
      const x = await removedFromA(t, how, { shop, book });
      const answer = await ok(
        t.app.inject({
          method: 'POST',
          url: '/auth/register-simple',
          headers: { store: 'WEB' },
          payload: { email: x.email, firstName: 'Tiit', lastName: 'Töötaja' },
        }),
      );
      expect(answer.json()).toEqual({ email: x.email, firstName: 'Tiit', lastName: 'Töötaja' });
      const mail = await mailTo(t, x.email, /Kinnitage oma e-posti aadress – Main store/);

      const [removed, made, ...more] = await accountsOf(t, x.email);
      expect(more).toEqual([]);
      expect(removed).toEqual(x.removed);
      expect(made).toMatchObject({ type: 'SIMPLE', store_code: 'WEB', company_id: null, role: 'customer' });

      const verified = await ok(verify(t, tokenFromMail(mail, 'verificationToken')));
      expect((await ok(me(t, verified.json().accessToken))).json()).toMatchObject({
        clientCode: made!.code,
        role: 'SIMPLE',
        roles: ['SIMPLE'],
      });
      const token = (await ok(login(t, x.email))).json().accessToken as string;
      expect(await seenBy(t, token)).toEqual({ clientCode: made!.code, orders: [], addresses: [], wishlist: 0, basketLines: 0 });
      if (x.orderAtA) expectErrorBody(await call(t, 'GET', `/order/${x.orderAtA}`, token), 404, 'Not Found');
      expect(expectFieldErrors(await login(t, x.email, GOOD_PASSWORD, 'WEB', 'BUSINESS'))).toEqual(['role']);
      expect((await accountsOf(t, x.email))[0]).toEqual(x.removed);
      expect(await companyRow(t, x.removed.company_id)).toEqual(x.companyOfA);
    });
  }
});

describe('BUSINESS_APPROVAL_STORES=WEB: a business registration of a person a company removed', () => {
  let approving: AccountsTestApp;
  beforeAll(async () => {
    approving = await createAccountsTestApp({ env: { BUSINESS_APPROVAL_STORES: 'WEB' } });
  });
  afterAll(() => approving.close());

  it('waits for the back office with a new account, then for the contact; the removed account stays', async () => {
    const x = await removedFromA(approving, 'worked');
    const form = businessForm(x.email);
    const mails = mailsTo(approving, x.email).length;
    await ok(postBusiness(approving, form));
    await approving.drainJobs();

    const [removed, made, ...more] = await accountsOf(approving, x.email);
    expect(more).toEqual([]);
    expect(removed).toEqual(x.removed);
    expect(made).toMatchObject({ type: 'BUSINESS', status: 'PENDING_APPROVAL' });
    const office = await mailTo(approving, BACKOFFICE, new RegExp(form.companyName));
    expect(office.text).toContain(`business approve ${made!.id}`);
    expect(mailsTo(approving, x.email)).toHaveLength(mails);

    const lines: string[] = [];
    await businessCommand({ db: approving.database.db, config: approving.config }, ['approve', String(made!.id)], (line) =>
      lines.push(line),
    );
    expect(lines).toEqual([expect.stringContaining(`Approved business account ${made!.id}`)]);
    const mail = await mailTo(approving, x.email, /ärikliendi konto/);
    await ok(verify(approving, tokenFromMail(mail, 'verificationToken')));
    const token = (await ok(login(approving, x.email, GOOD_PASSWORD, 'WEB', 'BUSINESS'))).json().accessToken as string;
    expect((await ok(me(approving, token))).json().clientCode).toBe(made!.code);
    expect((await accountsOf(approving, x.email))[0]).toEqual(x.removed);
  });
});
