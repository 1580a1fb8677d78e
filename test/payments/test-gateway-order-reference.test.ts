import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestGateway } from '../../src/modules/payments/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { paymentInput, TEST_GATEWAY_ON, testGateway } from './test-gateway.fixtures.js';

// The test gateway looks a payment up by its order reference for a subscription charge whose answer
// was lost (findPayment). The demo (npm start) keeps every payment it ever made, and the look-up read
// them all: no index had the order reference. It now walks one.

let t: TestApp;
let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startHttpReceiver();
  t = await createTestApp({ env: TEST_GATEWAY_ON });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe("the test gateway's look-up by order reference", () => {
  it('answers the latest payment of the reference through an index, without a sort', async () => {
    const gateway = testGateway(t);
    const orderReference = `SUB-${randomUUID().slice(0, 8)}`;
    await gateway.createPayment(paymentInput(receiver, { orderReference }));
    const latest = await gateway.createPayment(paymentInput(receiver, { orderReference }));
    for (let i = 0; i < 3; i += 1) await gateway.createPayment(paymentInput(receiver));

    const { db, statements } = recordingStatements(t.database.db);
    const recorded = createTestGateway({ ...t.database, db }, { publicUrl: t.config.social.publicUrl, basePath: t.config.basePath });
    expect((await recorded.findPayment(orderReference))?.reference).toBe(latest.reference);
    const [lookUp] = statements.filter((statement) => statement.sql.includes('"order_reference" ='));
    const plan = await planOfStatement(t.database.db, lookUp!);
    expect(plan, lookUp!.sql).toContain('test_gateway_payment_order_reference_idx');
    expect(plan, lookUp!.sql).not.toMatch(/TEMP B-TREE|Sort|(?:^|\n)\s*SCAN |Seq Scan/);
  });
});
