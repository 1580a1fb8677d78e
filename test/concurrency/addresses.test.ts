import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, type TestCustomer, SHIPPING_ADDRESS } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// A client's address writes that meet: each ends as one of them alone would have ended it, and none
// is a 500. On PostgreSQL they run at once (READ COMMITTED); SQLite runs them one after the other.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const ADDRESS = SHIPPING_ADDRESS;

async function saved(client: TestCustomer, streets: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const address of streets) {
    const made = await as(t, client.token)('POST', '/client-account/address', { ...ADDRESS, address });
    expect(made.statusCode, made.body).toBe(201);
    ids.push(made.json().id as number);
  }
  return ids;
}

describe('an address changed and deleted at once', () => {
  it('is either changed then deleted, or deleted and the change a 404; never a 500', async () => {
    for (let round = 0; round < 5; round++) {
      const client = await createCustomer(t.database.db);
      const call = as(t, client.token);
      const [id] = await saved(client, ['Vana 1']);
      const [changed, deleted] = await Promise.all([
        call('PUT', `/client-account/address/${id}`, { ...ADDRESS, address: 'Uus 2', isDefault: true }),
        call('DELETE', `/client-account/address/${id}`),
      ]);
      expect(deleted.statusCode, deleted.body).toBe(204);
      expect([200, 404], changed.body).toContain(changed.statusCode);
      expect((await call('GET', '/client-account/address')).json()).toEqual([]);
    }
  });
});

describe('several addresses made the default at once', () => {
  it('leaves exactly one default of the kind', async () => {
    const client = await createCustomer(t.database.db);
    const call = as(t, client.token);
    const ids = await saved(client, ['Üks 1', 'Kaks 2', 'Kolm 3', 'Neli 4']);
    const answers = await Promise.all(
      ids.map((id, i) => call('PUT', `/client-account/address/${id}`, { ...ADDRESS, address: `Vaikimisi ${i}`, isDefault: true })),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    const list = (await call('GET', '/client-account/address')).json() as Array<{ id: number; isDefault: boolean }>;
    expect(list).toHaveLength(4);
    expect(list.filter((address) => address.isDefault)).toHaveLength(1);
  });
});
