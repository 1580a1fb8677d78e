import { AliasNode, SelectQueryNode, TableNode, type KyselyPlugin, type OperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { createAccountsTestApp, mailsTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';
import { askBackInStock, askConfirmed } from './helpers.js';

// A client asks again for a product it was told of before and that sold out since. The request reads
// the product (not available) before its transaction; the product comes back meanwhile and the
// worker's scan tells the client's waiting request. The request must not then re-arm that request,
// told a moment ago about the very restock it would wait for: the next scan mailed the client twice.
// A guest's request re-armed so waited for a new confirmation of a restock it had just been told of.

/** Runs what a test arms once, right after the next read of `product` (aliased or not) by the app. */
function productReadHook() {
  let pending: (() => Promise<unknown>) | undefined;
  const reads = new Set<string>();
  const isProduct = (item: OperationNode) => {
    const table = AliasNode.is(item) ? item.node : item;
    return TableNode.is(table) && table.table.identifier.name === 'product';
  };
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (pending && SelectQueryNode.is(node) && node.from?.froms.some(isProduct)) reads.add(queryId.queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (reads.delete(queryId.queryId) && pending) {
        const run = pending;
        pending = undefined;
        await run();
      }
      return result;
    },
  };
  return { plugin, arm: (between: () => Promise<unknown>) => void (pending = between) };
}

const productRead = productReadHook();
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({
    env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '100000/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '100000/1h' },
    wrapDatabase: (database) => wrappedDatabase(database, productRead.plugin, () => {}),
  });
});
afterAll(() => t?.close());

const db = () => t.database.db;
const setStock = (product: number, stock: number) =>
  db().updateTable('product').set({ web_stock: stock }).where('id', '=', product).execute();
async function scanAndSend() {
  await scanBackInStock(db(), Date.now());
  await t.drainJobs();
}
const restockMails = (email: string) =>
  mailsTo(t, email).filter((mail) => /available again|jälle saadaval|снова в наличии/.test(mail.subject ?? ''));

describe('a client asking again while the product comes back', () => {
  it('is told of that restock once', async () => {
    const product = await createProduct(db(), { name: 'Tagasi', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const email = uniqueEmail('bis-race');
    const token = await registerVerified(t, email);
    const ask = () =>
      t.app.inject({
        method: 'POST',
        url: '/back-in-stock',
        payload: { productId: product },
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await ask()).statusCode).toBe(201);

    // Back in stock while the client asks again: the scan tells the waiting request meanwhile.
    productRead.arm(async () => {
      await setStock(product, 5);
      await scanAndSend();
    });
    const again = await ask();
    expect(restockMails(email)).toHaveLength(1);
    // The product is available now: asking for it is the documented 409 (or at most the told request as it is).
    expect([409, 200]).toContain(again.statusCode);

    await scanAndSend();
    expect(restockMails(email)).toHaveLength(1);
  });

  it("leaves a guest's request told of that restock as it is: no new confirmation mail for it", async () => {
    const product = await createProduct(db(), { name: 'Tagasi ka', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const email = uniqueEmail('bis-race-guest');
    await askConfirmed(t, t.smtp, { productId: product, email });
    await pastResubmitWindow(db());
    const confirmations = () => mailsTo(t, email).filter((mail) => /backInStockToken=/.test(mail.text ?? '')).length;
    const before = confirmations();

    productRead.arm(async () => {
      await setStock(product, 5);
      await scanAndSend();
    });
    const again = await askBackInStock(t, { productId: product, email });
    await t.drainJobs();
    expect(restockMails(email)).toHaveLength(1);
    expect(confirmations()).toBe(before);
    expect(again.statusCode).toBe(409);
    const row = await db().selectFrom('back_in_stock_request').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(row.confirmed_at).not.toBeNull();
    expect(row.notified_at).not.toBeNull();
  });
});
