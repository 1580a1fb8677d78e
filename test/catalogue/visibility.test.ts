import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerKind } from '../../src/modules/pricing/pricing.js';
import { GUEST, isVisibleTo, visibleProduct, visibleSearchProduct, type Caller } from '../../src/modules/catalogue/index.js';
import { createEngine } from '../../src/modules/search/engines.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The one visibility rule (catalogue/visibility.ts) in each of its forms: the predicate on a loaded
// product, the SQL over product and the SQL over search_product. Every combination of the facts it
// reads is held against the rule as stated here, for every kind of caller; and the routes show
// what the rule says to real callers of each kind.

const KINDS: CustomerKind[] = ['GUEST', 'SIMPLE', 'BUSINESS', 'WHOLESALE'];
/** The rule, stated independently of the code: business and wholesale customers see the business catalogue. */
const seesBusiness = (kind: CustomerKind) => kind === 'BUSINESS' || kind === 'WHOLESALE';

interface Facts {
  isActive: boolean;
  inStore: boolean;
  hiddenWeb: boolean;
  hiddenBusiness: boolean;
}

const expected = (facts: Facts, kind: CustomerKind) =>
  facts.isActive && facts.inStore && !(seesBusiness(kind) ? facts.hiddenBusiness : facts.hiddenWeb);

let t: TestApp;
const products = new Map<number, Facts>();

beforeAll(async () => {
  t = await createTestApp();
  for (let bits = 0; bits < 16; bits += 1) {
    const facts: Facts = { isActive: (bits & 1) > 0, inStore: (bits & 2) > 0, hiddenWeb: (bits & 4) > 0, hiddenBusiness: (bits & 8) > 0 };
    const id = await createProduct(t.database.db, {
      active: facts.isActive,
      stores: facts.inStore ? ['WEB'] : ['WEB2'],
      hiddenWeb: facts.hiddenWeb,
      hiddenBusiness: facts.hiddenBusiness,
    });
    products.set(id, facts);
  }
});

afterAll(async () => {
  await t?.close();
});

const callerOf = (kind: CustomerKind): Caller => ({ ...GUEST, kind, clientAccountId: kind === 'GUEST' ? null : 1 });

describe('the visibility rule', () => {
  it('has every combination of its facts to check', () => {
    expect(products.size).toBe(16);
    expect(new Set([...products.values()].map((facts) => JSON.stringify(facts))).size).toBe(16);
  });

  for (const kind of KINDS) {
    it(`gives the same answer in every form for a ${kind} caller`, async () => {
      const caller = callerOf(kind);
      const ids = [...products.keys()];
      const db = t.database.db;
      const overProduct = await db
        .selectFrom('product as p')
        .select('p.id')
        .where('p.id', 'in', ids)
        .where(visibleProduct('WEB', caller))
        .execute();
      const engine = createEngine(t.database);
      const overSearch = await db
        .selectFrom('search_product as sp')
        .select('sp.id')
        .where('sp.id', 'in', ids)
        .where(visibleSearchProduct('WEB', caller, engine.contains))
        .execute();
      const rule = ids.filter((id) => expected(products.get(id)!, kind)).sort((a, b) => a - b);
      const sorted = (rows: Array<{ id: number }>) => rows.map((row) => Number(row.id)).sort((a, b) => a - b);
      // Some visible and some hidden: the comparison says something for this kind.
      expect(rule.length).toBeGreaterThan(0);
      expect(rule.length).toBeLessThan(ids.length);
      expect(ids.filter((id) => isVisibleTo(products.get(id)!, caller))).toEqual(rule);
      expect(sorted(overProduct)).toEqual(rule);
      expect(sorted(overSearch)).toEqual(rule);
    });
  }
});

describe('what callers of each kind see', () => {
  const customers = new Map<CustomerKind, TestCustomer | undefined>();
  const visible = { isActive: true, inStore: true };

  beforeAll(async () => {
    customers.set('GUEST', undefined);
    for (const kind of ['SIMPLE', 'BUSINESS', 'WHOLESALE'] as const) customers.set(kind, await createCustomer(t.database.db, { kind }));
  });

  const idOf = (facts: Facts) => [...products].find(([, f]) => JSON.stringify(f) === JSON.stringify(facts))![0];

  for (const kind of KINDS) {
    it(`shows a ${kind} caller the ${seesBusiness(kind) ? 'business' : 'public'} catalogue, in details and in lists`, async () => {
      const customer = customers.get(kind);
      const headers = customer ? { authorization: `Bearer ${customer.token}` } : {};
      const hiddenFromWeb = idOf({ ...visible, hiddenWeb: true, hiddenBusiness: false });
      const hiddenFromBusiness = idOf({ ...visible, hiddenWeb: false, hiddenBusiness: true });
      const shown = seesBusiness(kind) ? hiddenFromWeb : hiddenFromBusiness;
      const hidden = seesBusiness(kind) ? hiddenFromBusiness : hiddenFromWeb;
      expect((await t.app.inject({ url: `/product/${shown}`, headers })).statusCode).toBe(200);
      expect((await t.app.inject({ url: `/product/${hidden}`, headers })).statusCode).toBe(404);
      const list = await t.app.inject({ url: '/product?per-page=100', headers });
      expect(list.statusCode).toBe(200);
      const listed = (list.json() as Array<{ id: number }>).map((card) => card.id);
      expect(listed).toContain(shown);
      expect(listed).not.toContain(hidden);
      const expectedIds = [...products].filter(([, facts]) => expected(facts, kind)).map(([id]) => id);
      expect(listed.filter((id) => products.has(id)).sort((a, b) => a - b)).toEqual(expectedIds.sort((a, b) => a - b));
    });
  }
});
