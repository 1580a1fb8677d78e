import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { isPlainRead, lsnBytes, replayedUpTo } from '../../src/db/replica-routing.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createTestApp, engine, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';

// DATABASE_REPLICA_URL (docs/deployment.md). Here the "replica" is a second database that holds
// the same product under another name, so every answer shows which database served it; the real
// streaming replica is exercised by bench/scale-out.ts.

describe('which statements a replica may serve', () => {
  it('plain SELECTs only, never a locking one or a write', () => {
    expect(isPlainRead('select * from product where id = $1')).toBe(true);
    expect(isPlainRead('  SELECT 1')).toBe(true);
    expect(isPlainRead('select * from job where id = $1 for update skip locked')).toBe(false);
    expect(isPlainRead('select * from job for no key update')).toBe(false);
    expect(isPlainRead('select * from job for share')).toBe(false);
    expect(isPlainRead('insert into product (code) values ($1) returning id')).toBe(false);
    expect(isPlainRead('with gone as (delete from job returning id) select count(*) from gone')).toBe(false);
    expect(isPlainRead('update product set name = $1')).toBe(false);
  });
});

describe('whether a replica has replayed what the primary had inserted', () => {
  // 8 kB pages, 16 MB segments: 0/5000000 is a segment's start, 0/5002000 another page's.
  const layout = { pageBytes: 8192n, segmentBytes: 16n * 1024n * 1024n };

  it('reads pg_lsn text', () => {
    expect(lsnBytes('0/0')).toBe(0n);
    expect(lsnBytes('16/B374D848')).toBe(0x16b374d848n);
    expect(() => lsnBytes('16-B374D848')).toThrow(/WAL position/);
  });

  it('once it has replayed up to the insert position', () => {
    expect(replayedUpTo('0/5000108', '0/5000108', layout)).toBe(true);
    expect(replayedUpTo('1/0', '0/5000108', layout)).toBe(true);
    expect(replayedUpTo('0/5000100', '0/5000108', layout)).toBe(false);
  });

  it('at a page start, when the primary inserts next right past that page header', () => {
    // After a segment switch: the switch record ends at the segment's end, the next record begins past
    // the long header of the next segment's first page.
    expect(replayedUpTo('0/5000000', '0/5000028', layout)).toBe(true);
    // A record that ended at a page's end: the next begins past the next page's short header.
    expect(replayedUpTo('0/5002000', '0/5002018', layout)).toBe(true);
    expect(replayedUpTo('0/5001FF8', '0/5002018', layout)).toBe(false);
    expect(replayedUpTo('0/5000000', '0/5000028', undefined)).toBe(false);
  });

  it('not when the insert position is past a record that spilled onto the page', () => {
    // 40 bytes into a page other than a segment's first: a record begun on the page before ends there.
    expect(replayedUpTo('0/5002000', '0/5002028', layout)).toBe(false);
    expect(replayedUpTo('0/5002000', '0/5002030', layout)).toBe(false);
    expect(replayedUpTo('0/5000000', '0/5000030', layout)).toBe(false);
    // 24 bytes into a segment's first page is inside its long header: never an insert position.
    expect(replayedUpTo('0/5000000', '0/5000018', layout)).toBe(false);
  });
});

describe('DATABASE_REPLICA_URL settings', () => {
  it('needs PostgreSQL on both sides', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://replica/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://primary/db', DATABASE_REPLICA_URL: 'sqlite:replica.db' })).toThrow(
      /DATABASE_REPLICA_URL/,
    );
    expect(() => createDatabase('sqlite::memory:', { replica: { url: 'postgres://replica/db', maxLagMs: 1000 } })).toThrow(/PostgreSQL/);
  });

  it('reads the lag and stickiness, with defaults', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://primary/db', DATABASE_REPLICA_URL: 'postgres://replica/db' });
    expect(config.replica).toEqual({ url: 'postgres://replica/db', maxLagMs: 1000, stickyMs: 5000 });
    const tuned = loadConfig({
      DATABASE_URL: 'postgres://primary/db',
      DATABASE_REPLICA_URL: 'postgres://replica/db',
      DATABASE_REPLICA_MAX_LAG_MS: '250',
      DATABASE_REPLICA_STICKY_MS: '10000',
    });
    expect(tuned.replica).toMatchObject({ maxLagMs: 250, stickyMs: 10000 });
    expect(loadConfig({}).replica).toBeUndefined();
    expect(() => loadConfig({ DATABASE_REPLICA_MAX_LAG_MS: '-1' })).toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
  });
});

describe.skipIf(engine !== 'postgres')('reads routed to a read replica', () => {
  let t: TestApp;
  let replica: DatabaseHandle;
  let dropReplica: () => Promise<void>;
  let productId: number;

  // Tests all come from one address: a reader of its own, so the basket writes below do not make it sticky.
  const nameOf = async (headers: Record<string, string> = { 'basket-token': 'a-reader' }) => {
    const response = await t.app.inject({ method: 'GET', url: `/product/${productId}`, headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().name as string;
  };
  const waitFor = async (condition: () => boolean) => {
    for (let i = 0; i < 100 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(condition()).toBe(true);
  };

  beforeAll(async () => {
    const scratch = await migratedScratchDatabase();
    dropReplica = scratch.drop;
    replica = createDatabase(scratch.url);
    await migrateToLatest(replica);
    t = await createTestApp({ env: { DATABASE_REPLICA_URL: scratch.url, DATABASE_REPLICA_STICKY_MS: '60000' } });
    productId = await createProduct(t.database.db, { code: 'ROUTED', name: 'On the primary' });
    await setStock(t.database.db, productId, await createShop(t.database.db, { code: 'TLN1', name: 'Viru' }), 5);
    expect(await createProduct(replica.db, { code: 'ROUTED', name: 'On the replica' })).toBe(productId);
    await waitFor(() => t.database.replicaUsable?.() === true);
  });
  afterAll(async () => {
    await t?.close();
    await replica?.close();
    await dropReplica?.();
  });

  it('serves catalogue reads from the replica while it keeps up', async () => {
    expect(await nameOf()).toBe('On the replica');
    const list = await t.app.inject({ method: 'GET', url: '/product?per-page=50' });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().map((p: { name: string }) => p.name)).toContain('On the replica');
  });

  it('keeps a caller who has just written on the primary, and only that caller', async () => {
    const added = await t.app.inject({ method: 'POST', url: '/basket/add-product', payload: { productId, quantity: 1 } });
    expect(added.statusCode, added.body).toBe(200);
    const basketToken = added.json().basketToken as string;
    expect(await nameOf({ 'basket-token': basketToken })).toBe('On the primary');
    expect(await nameOf({ 'basket-token': 'someone-else' })).toBe('On the replica');
  });

  it('writes through the replica view land on the primary', async () => {
    await t.database.replicaReads.db.updateTable('product').set({ name: 'Renamed on the primary' }).where('id', '=', productId).execute();
    const row = await t.database.db.selectFrom('product').select('name').where('id', '=', productId).executeTakeFirstOrThrow();
    expect(row.name).toBe('Renamed on the primary');
    expect(await nameOf()).toBe('On the replica');
  });

  it('reads from the primary while the replica is unreachable', async () => {
    await replica.close();
    await dropReplica();
    await waitFor(() => t.database.replicaUsable?.() === false);
    expect(await nameOf()).toBe('Renamed on the primary');
  });
});
