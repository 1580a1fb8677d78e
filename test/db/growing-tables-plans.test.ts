import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { pruneExpired } from '../../src/infra/maintenance.js';
import { erasedEmailOf, type PersonalDataSubject } from '../../src/infra/personal-data.js';
import { accessTokenPruning } from '../../src/modules/accounts/index.js';
import { backInStockPruning } from '../../src/modules/back-in-stock/index.js';
import { claimMailbox, dueRequests, findRequestByToken, pendingScopes } from '../../src/modules/back-in-stock/back-in-stock.repository.js';
import { basketPruning } from '../../src/modules/basket/index.js';
import { removeAccount } from '../../src/modules/companies/company-users.repository.js';
import { bannerCtrPruning } from '../../src/modules/ctr/index.js';
import { pruneUsedLinks } from '../../src/modules/downloads/index.js';
import { personalDataParts } from '../../src/modules/gdpr/index.js';
import { pruneIntegrationEvents } from '../../src/modules/integrations/index.js';
import { boughtProductPage } from '../../src/modules/orders/order-history.repository.js';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { newsletterRequestPruning } from '../../src/modules/newsletter/index.js';
import { expirePendingRequests, findSubscriber, withdrawSubscriber } from '../../src/modules/newsletter/newsletter.repository.js';
import { socialSignInPruning, usedIdTokenPruning } from '../../src/modules/social/index.js';
import { subscriptionCardPruning } from '../../src/modules/subscriptions/index.js';
import { sessionActionPruning } from '../../src/modules/tracking/index.js';
import { createComment } from '../../src/modules/catalogue/reviews/comment.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import * as boughtProductTriggers from '../../src/db/migrations/2026_11_28_0610_create_bought_product.js';
import * as jobEmailMigration from '../../src/db/migrations/2026_11_29_0400_index_job_emails.js';
import { enqueueJob } from '../../src/infra/jobs/queue.js';
import { jobsCommand } from '../../src/infra/jobs/jobs.cli.js';
import { webhookCommand } from '../../src/modules/integrations/index.js';
import { systemClock } from '../../src/infra/clock.js';
import { orderFeed } from '../../src/modules/orders/processing/admin-orders.service.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The statements that read or delete by a column of a table that grows every day (the hourly
// prunes, the back-in-stock scan, "your data", a removed company user's sessions, a new comment's
// look-up of the same submit) are planned
// through an index on both engines: none reads the whole table. They are recorded as the code
// runs them (a plugin compiles each query), then explained with their own parameters; on
// PostgreSQL with sequential scans off, as on a large table, so that only a missing index scans.

const GROWING = [
  'integration_event',
  'webhook_delivery',
  'back_in_stock_request',
  'basket',
  'job',
  'job_email',
  'rate_limit',
  'session_action',
  'sales_history',
  'newsletter_request',
  'virtual_gift_card_purchase',
  'access_token',
  'subscription',
  'subscription_card',
  'used_id_token',
  'download_link_use',
  'webhook_attempt',
  'auth_record',
  'oauth_transaction',
  'customer_order',
  'order_line',
  'bought_product',
  'product_comment',
  'banner_ctr',
];

let t: TestApp;
const sqlite = () => t.database.engine === 'sqlite';
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The growing tables the plan reads whole. */
function scannedTables(plan: string): string[] {
  const scan = sqlite() ? /(?:^|\n)\s*SCAN (\w+)/g : /Seq Scan on (\w+)/g;
  return [...plan.matchAll(scan)].map((match) => match[1]!).filter((table) => GROWING.includes(table));
}

async function expectIndexed(statements: CompiledQuery[]) {
  expect(statements.length).toBeGreaterThan(0);
  for (const statement of statements) {
    if (!GROWING.some((table) => statement.sql.includes(`"${table}"`))) continue;
    const plan = await planOfStatement(t.database.db, statement);
    expect(scannedTables(plan), `${statement.sql}\n${plan}`).toEqual([]);
  }
}

describe('statements on tables that grow every day', () => {
  it('the hourly prunes read their rows through an index', async () => {
    const { db, statements } = recordingStatements(t.database.db);
    const now = Date.now();
    await pruneExpired(db, now);
    await pruneIntegrationEvents(db, now);
    await basketPruning()(db, now);
    await subscriptionCardPruning(db, now);
    await accessTokenPruning()(db, now);
    await socialSignInPruning()(db, now);
    await usedIdTokenPruning()(db, now);
    await newsletterRequestPruning()(db, now);
    await pruneUsedLinks(db, now);
    await backInStockPruning()(db, now);
    await sessionActionPruning(90 * 86_400_000)(db, now);
    await bannerCtrPruning(db, now);
    await expectIndexed(statements);
  });

  it("the back-in-stock scan, a newsletter unsubscribe and a removed company user's sessions do too", async () => {
    const { db, statements } = recordingStatements(t.database.db);
    const now = Date.now();
    await dueRequests(db, { store_code: 'WEB', audience: 'R' }, now, 200);
    // The claim of one mailbox's requests, by its address.
    await claimMailbox(db, { storeCode: 'WEB', productId: 1, email: 'someone@example.ee' }, now);
    await pendingScopes(db, now);
    // A guest's confirmation link, by its token's hash.
    await findRequestByToken(db, 'a'.repeat(64), now);
    await expirePendingRequests(db, 'someone@example.ee', 'WEB', now);
    await withdrawSubscriber(db, 'someone@example.ee', 'WEB', now);
    await findSubscriber(db, 'someone@example.ee', 'WEB');
    const member = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    expect(await removeAccount(db, member.clientAccountId, await userIdOf(t.database.db, member), now)).toBe(true);
    await expectIndexed(statements);
  });

  it('the back-in-stock scan reads only confirmed pending requests through its partial index (back_in_stock_request_due_idx)', async () => {
    const { db, statements } = recordingStatements(t.database.db);
    await dueRequests(db, { store_code: 'WEB', audience: 'R' }, Date.now(), 200);
    const [due] = statements.filter((statement) => statement.sql.includes('"back_in_stock_request"'));
    expect(due!.sql).toMatch(/"confirmed_at" is not null/);
    expect(await planOfStatement(t.database.db, due!)).toContain('back_in_stock_request_due_idx');
  });

  it("the operators' order feed reads a page after its cursor, and the count, through customer_order_updated_idx", async () => {
    const { db, statements } = recordingStatements(t.database.db);
    await orderFeed(db, Date.now() - 60_000, { offset: 0, limit: 20, cursor: { updatedAt: Date.now() - 30_000, id: 1 } });
    await expectIndexed(statements);
  });

  it('a new comment and its repeat find the same submit through product_comment_submission_idx', async () => {
    const { db, statements } = recordingStatements(t.database.db);
    const now = Date.now();
    const customer = await createCustomer(t.database.db);
    const productId = await createProduct(t.database.db);
    const input = { productId, clientAccountId: customer.clientAccountId, body: 'Hea', rating: 4, language: 'et' as const, now };
    const first = await db.transaction().execute((trx) => createComment(trx, input));
    const again = await db.transaction().execute((trx) => createComment(trx, { ...input, now: now + 1 }));
    expect(again.id).toBe(first.id);
    await expectIndexed(statements);
    const lookUp = statements.find((statement) => /from "product_comment" where "client_account_id" = /.test(statement.sql));
    expect(lookUp?.sql).toContain('"submission_hash" =');
    expect(await planOfStatement(t.database.db, lookUp!)).toContain('product_comment_submission_idx');
  });

  it("a person's data (export and erasure) is found through indexes", async () => {
    const { db, statements } = recordingStatements(t.database.db);
    const now = Date.now();
    const customer = await createCustomer(t.database.db);
    const account = await t.database.db
      .selectFrom('client_account as a')
      .innerJoin('app_user as u', 'u.id', 'a.user_id')
      .select(['a.user_id', 'a.code', 'u.email'])
      .where('a.id', '=', customer.clientAccountId)
      .executeTakeFirstOrThrow();
    const userId = Number(account.user_id);
    const subject: PersonalDataSubject = {
      userId,
      email: account.email,
      loginEmailConfirmed: true,
      accounts: [
        {
          id: customer.clientAccountId,
          code: account.code,
          storeCode: 'WEB',
          type: 'SIMPLE',
          companyId: null,
          role: 'customer',
          status: 'ACTIVE',
        },
      ],
      erasedEmail: erasedEmailOf(userId),
    };
    await enqueueJob(t.database.db, { type: 'account.mail', payload: { kind: 'resetRequest', email: account.email } }, { maxAttempts: 3 });
    for (const part of personalDataParts) await part.export(db, subject);
    await db.transaction().execute(async (trx) => {
      for (const part of personalDataParts) await part.erase(trx, subject, now);
    });
    await expectIndexed(statements);
    // The outbox's jobs naming the person are a range of job_email's key, each job read by its own:
    // the outbox's part (export, erasure, the latter page after page from the last job id) and the
    // profile's email-change mails (erasure).
    const outbox = statements.filter((statement) => /from "job_email"/.test(statement.sql));
    expect(outbox).toHaveLength(3);
    for (const statement of outbox) {
      const plan = await planOfStatement(t.database.db, statement);
      expect(plan, statement.sql).toMatch(
        sqlite() ? /SEARCH e USING PRIMARY KEY \(email=\?( AND job_id>\?)?\)/ : /Index Only Scan using job_email_pk on job_email e/,
      );
      expect(plan, statement.sql).not.toMatch(/TEMP B-TREE|Sort/);
    }
  });

  it("the outbox's index loses a job's rows through job_email_job_idx (a rewritten payload, a pruned job's cascade)", async () => {
    const plan = await planOfStatement(t.database.db, CompiledQuery.raw(jobEmailMigration.jobRowsOut('1')));
    expect(plan).toContain('job_email_job_idx');
    expect(scannedTables(plan)).toEqual([]);
  });
});

describe("the operators' lists, newest first", () => {
  /** The page's statement on the table, explained: walked in the list's order through `index`, nothing sorted. */
  async function expectWalked(statements: CompiledQuery[], table: string, index: string) {
    const pages = statements.filter((statement) => statement.sql.includes(`from "${table}"`) && /order by/.test(statement.sql));
    expect(pages).toHaveLength(1);
    const plan = await planOfStatement(t.database.db, pages[0]!);
    expect(plan, pages[0]!.sql).toContain(index);
    expect(plan, pages[0]!.sql).not.toMatch(/TEMP B-TREE|Sort/);
    expect(scannedTables(plan), `${pages[0]!.sql}\n${plan}`).toEqual([]);
  }

  it.each(['done', 'dead'])('jobs list --status=%s reads the page through job_status_id_idx', async (status) => {
    const { db, statements } = recordingStatements(t.database.db);
    await jobsCommand(db, ['list', `--status=${status}`], () => {});
    await expectWalked(statements, 'job', 'job_status_id_idx');
  });

  it.each([
    [[], 'webhook_delivery_endpoint_position_idx'],
    [['--status', 'dead'], 'webhook_delivery_endpoint_status_position_idx'],
  ])('webhook deliveries <name> %j reads the page through %s', async (options, index) => {
    const deps = { db: t.database.db, clock: systemClock };
    await webhookCommand(deps, ['add', `plans-${index}`, 'https://crm.example/hooks'], () => {});
    const { db, statements } = recordingStatements(t.database.db);
    await webhookCommand({ ...deps, db }, ['deliveries', `plans-${index}`, ...options], () => {});
    await expectWalked(statements, 'webhook_delivery', index);
  });
});

describe("a client's purchase history (GET /bought-product, bought_product)", () => {
  it('reads page 1 and the total as a range of bought_product_page_idx, without a sort', async () => {
    const db = t.database.db;
    const customer = await createCustomer(db);
    const owner = { clientAccountId: customer.clientAccountId, storeCode: 'WEB' };
    const line = (productId: number) => ({ productId, productCode: `P${productId}` });
    for (const lines of [[line(9001), line(9002)], [line(9001)], [line(9003)]]) {
      const order = await insertOrder(db, { status: 'NEW', clientAccountId: customer.clientAccountId, lines });
      await db
        .transaction()
        .execute((trx) => moveOrder(trx, { orderId: order.id, from: 'NEW', to: 'PENDING_PROCESSING', cause: 'paid', now: Date.now() }));
    }
    const { db: reader, statements } = recordingStatements(db);
    const page = await boughtProductPage(reader, owner, { page: 1, perPage: 20, offset: 0 });
    expect(page.rows.map((row) => [row.productId, row.quantity])).toEqual([
      [9003, 1],
      [9001, 2],
      [9002, 1],
    ]);
    expect(page.total).toBe(3);
    expect(statements).toHaveLength(2);
    // Each row of the page finds its line by the line's key.
    expect(await planOfStatement(db, statements[0]!)).toMatch(
      /order_line_pk|sqlite_autoindex_order_line_1 \(order_id=\? AND position=\?\)/,
    );
    for (const statement of statements) {
      const plan = await planOfStatement(db, statement);
      expect(plan, statement.sql).toContain('bought_product_page_idx');
      expect(plan, statement.sql).not.toMatch(/TEMP B-TREE|Sort/);
      expect(scannedTables(plan), `${statement.sql}\n${plan}`).toEqual([]);
    }
  });

  it("is kept by triggers whose statements read through indexes (migration 0610's own SQL, an order's values for new)", async () => {
    const db = t.database.db;
    const customer = await createCustomer(db);
    const order = await insertOrder(db, {
      status: 'NEW',
      clientAccountId: customer.clientAccountId,
      lines: [{ productId: 9101, productCode: 'P9101' }],
    });
    const values = (body: string) =>
      body
        .replaceAll('new.client_account_id', String(customer.clientAccountId))
        .replaceAll('new.store_code', "'WEB'")
        .replaceAll('new.id', String(order.id));
    const statements = [boughtProductTriggers.countOrder(sqlite() ? 'max' : 'greatest'), boughtProductTriggers.uncountOrder]
      .flatMap((body) => values(body).split(';'))
      .map((statement) => statement.trim())
      .filter((statement) => statement !== '')
      .map((statement) => CompiledQuery.raw(statement));
    expect(statements).toHaveLength(4);
    for (const statement of statements) {
      const plan = await planOfStatement(db, statement);
      expect(scannedTables(plan), `${statement.sql}\n${plan}`).toEqual([]);
    }
  });
});
