import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrimaryWithReplica, waitForReplica, withDatabase, type PrimaryWithReplica } from '../../bench/lib/pg-replica.js';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { until } from '../helpers/lock-waits.js';
import { engine, TEST_CARD_TOKEN_KEYS } from '../helpers/test-app.js';
import { exportUser, insertSales, nextSecond, sleep, ymdHis } from './fixtures.js';

// With DATABASE_REPLICA_URL the export reads the replica. A writer that committed on the primary before
// the cut was decided, and that the replica has not replayed yet, is missing from the answer; a window
// that has ended is then answered without it, and the partner, who moves on past it, never reads it.
// The read waits briefly for the replica to replay the primary's WAL position the cut was decided at,
// else reads the primary. A real streaming replica on loopback (bench/lib/pg-replica.ts, as the
// scale-out run starts it) whose replay is paused, read within its allowed lag.

const SETTLE_MS = 1000;
const hasPostgresBinaries = () => {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(join(root, version, 'bin', 'pg_basebackup')));
};

describe.skipIf(engine !== 'postgres' || !hasPostgresBinaries())('the export read from a replica that lags', () => {
  let cluster: PrimaryWithReplica | undefined;
  let database: DatabaseHandle | undefined;
  let app: App | undefined;
  let replica: pg.Client | undefined;
  let authorization: string;
  let urls: { primary: string; replica: string; config: Record<string, string> } | undefined;
  const mailDir = mkdtempSync(join(tmpdir(), 'storefront-mail-'));
  const q = (ms: number) => encodeURIComponent(ymdHis(ms));
  /** The orders of the sales created in `second` (ms), through the export. */
  const sales = async (second: number) => {
    const response = await app!.inject({
      method: 'GET',
      url: `/export/sales-history?createdFrom=${q(second)}&createdTo=${q(second)}`,
      headers: { authorization },
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Array<{ order: string }>).map((item) => item.order);
  };

  beforeAll(async () => {
    cluster = await startPrimaryWithReplica();
    const admin = new pg.Client({ connectionString: cluster.primaryUrl });
    await admin.connect();
    await admin.query('create database storefront');
    await admin.end();
    const primaryUrl = withDatabase(cluster.primaryUrl, 'storefront');
    const replicaUrl = withDatabase(cluster.replicaUrl, 'storefront');
    const env = {
      LOG_LEVEL: 'silent',
      DATABASE_URL: primaryUrl,
      DATABASE_REPLICA_URL: replicaUrl,
      // Read within its lag however long the test keeps its replay paused.
      DATABASE_REPLICA_MAX_LAG_MS: '600000',
      DATA_EXPORT_SETTLE_MS: String(SETTLE_MS),
      DATA_EXPORT_COUNT_CACHE_TTL_MS: '0',
      CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS,
      MAIL_DIR: mailDir,
    };
    urls = { primary: primaryUrl, replica: replicaUrl, config: env };
    const config = loadConfig(env);
    database = createDatabase(config.databaseUrl, { replica: config.replica });
    await migrateToLatest(database);
    app = await buildApp(config, { database });
    await app.ready();
    ({ authorization } = await exportUser(database.db));
    await waitForReplica(cluster);
    await until('the replica to be read', () => database!.replicaUsable?.() === true);
    replica = new pg.Client({ connectionString: replicaUrl });
    await replica.connect();
    // waitForReplica compares with the primary's written position, which a commit made with
    // synchronous_commit off (as the cluster runs) may not have reached yet: a test that paused replay
    // at once then read without the export user (401), and left replay paused for the next ones.
    await until('the replica to have the export user', async () => {
      const { rows } = await replica!.query<{ n: number }>('select count(*)::int as n from export_user');
      return rows[0]!.n === 1;
    });
  }, 120_000);
  afterAll(async () => {
    await replica?.query('select pg_wal_replay_resume()').catch(() => {});
    await replica?.end();
    await app?.close();
    await database?.close();
    cluster?.stop();
    rmSync(mailDir, { recursive: true, force: true });
  });

  it('answers a window that has ended with the rows committed on the primary before its cut', async () => {
    const onReplica = async () => Number((await replica!.query<{ n: number }>('select count(*)::int as n from sales_history')).rows[0]!.n);
    await replica!.query('select pg_wal_replay_pause()');
    const second = await nextSecond();
    await insertSales(database!.db, [{ order: 'COMMITTED-ON-PRIMARY', createdAt: second + 100 }]);
    await sleep(second + 1000 + SETTLE_MS + 200 - Date.now());
    // Committed on the primary, not replayed; the replica is still read (within its allowed lag).
    expect(await onReplica()).toBe(0);
    expect(database!.replicaUsable?.()).toBe(true);
    expect(await sales(second)).toEqual(['COMMITTED-ON-PRIMARY']);
    const streamed = await app!.inject({
      method: 'GET',
      url: `/export/sales-history?createdFrom=${q(second)}&createdTo=${q(second)}`,
      headers: { authorization, accept: 'application/x-ndjson' },
    });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(
      streamed.body
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { order: string }).order),
    ).toEqual(['COMMITTED-ON-PRIMARY']);

    // Replayed, the replica answers it the same.
    await replica!.query('select pg_wal_replay_resume()');
    await waitForReplica(cluster!);
    expect(await onReplica()).toBe(1);
    expect(await sales(second)).toEqual(['COMMITTED-ON-PRIMARY']);
  }, 60_000);
  it('reads a replica that has replayed everything at once after a WAL segment switch on an idle primary', async () => {
    // After pg_switch_wal() (or any record that ends at a WAL page's end) on an idle primary, its insert
    // position stands past the next page's header, while a replica that has replayed everything stands
    // at the page's start, where the last record ends. The export must read that replica at once, not
    // wait the whole REPLICA_CATCH_UP_WAIT_MS for a write that may never come and then read the primary.
    // The read waits for its window to settle, writing nothing (its password remembered; its rate-limit
    // hit is counted once the cut is decided): the switch comes in that wait, before the cut. Asserted
    // on the answers of the replica check the read made.
    const primary = new pg.Client({ connectionString: urls!.primary });
    await primary.connect();
    const replicaView = database!.replicaReads;
    const check = replicaView.seesPrimaryWal!;
    const asked: Array<{ lsn: string; answer: boolean | 'primary' }> = [];
    replicaView.seesPrimaryWal = async (lsn) => {
      const answer = await check(lsn);
      asked.push({ lsn, answer });
      return answer;
    };
    const insertPosition = async () =>
      (await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]!.lsn;
    try {
      // The password checked once (a check is counted as a failure first, and refunded): remembered after.
      expect(await sales(Date.UTC(2026, 0, 5, 10, 0, 0))).toEqual([]);
      // Something else the primary writes after the switch and before the cut (the background writer's
      // standby snapshot, at most every 15 s; autovacuum) moves its position past the header, and the
      // replica must then replay it: try again then.
      for (let attempt = 1; ; attempt += 1) {
        const second = await nextSecond();
        const order = `SWITCH-${attempt}`;
        await insertSales(database!.db, [{ order, createdAt: second + 100 }]);
        asked.length = 0;
        // The window ends within this second: the read settles until a second after it.
        const read = sales(second);
        await primary.query('select pg_switch_wal()');
        const { rows } = await primary.query<{ end: string }>('select pg_current_wal_flush_lsn()::text as end');
        await until('the replica to replay the switch', async () => {
          const replayed = await replica!.query<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [rows[0]!.end]);
          return replayed.rows[0]!.done;
        });
        const switched = await insertPosition();
        expect(await read).toEqual([order]);
        // The cut was decided where the switch left the primary: nothing else was written in between.
        if (asked[0]?.lsn === switched) break;
        if (attempt === 5) throw new Error('the primary wrote something after each switch');
      }
      expect(database!.replicaUsable?.()).toBe(true);
      expect(asked.map(({ answer }) => answer)).toEqual([true]);
    } finally {
      replicaView.seesPrimaryWal = check;
      await primary.end();
    }
  }, 60_000);
  it("reads a quiet replica at once: the WAL position it must have replayed is not the read's own rate-limit count", async () => {
    // A window that ended long ago has no settle wait: its cut is decided as soon as the request is in.
    // The read must wait for the replica to replay the primary's WAL position taken with the cut; when
    // the request counted its rate-limit hit (a write on the primary) before the cut, that position
    // held the request's own write, and every read waited for it to be replayed (with
    // synchronous_commit off, 1 to 8 checks of 25 ms on a quiet primary). Asked of the replica: the
    // position where the primary stood before the read, and at once replayed.
    const primary = new pg.Client({ connectionString: urls!.primary });
    await primary.connect();
    const replicaView = database!.replicaReads;
    const check = replicaView.seesPrimaryWal!;
    const asked: Array<{ lsn: string; answer: boolean | 'primary' }> = [];
    replicaView.seesPrimaryWal = async (lsn) => {
      const answer = await check(lsn);
      asked.push({ lsn, answer });
      return answer;
    };
    const insertPosition = async () =>
      (await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]!.lsn;
    const ended = Date.UTC(2026, 0, 5, 10, 0, 0);
    try {
      // The password checked once (a check is counted as a failure first, and refunded): remembered after.
      expect(await sales(ended)).toEqual([]);
      // Something else the primary writes meanwhile (the background writer's standby snapshot,
      // autovacuum) moves its position: try again then.
      for (let attempt = 1; ; attempt += 1) {
        const before = await insertPosition();
        await until('the replica to replay what the primary holds', async () => (await check(before)) === true);
        asked.length = 0;
        expect(await sales(ended)).toEqual([]);
        if (asked[0]?.lsn === before) break;
        if (attempt === 5) {
          throw new Error(
            `the replica was asked to replay ${JSON.stringify(asked)}, past ${before} where the primary stood before each of 5 reads`,
          );
        }
      }
      expect(asked).toEqual([{ lsn: expect.any(String), answer: true }]);
    } finally {
      replicaView.seesPrimaryWal = check;
      await primary.end();
    }
  }, 60_000);
  it('keeps a stream that began while the replica was not read on the primary when the replica comes back behind', async () => {
    // The app reaches the replica through a proxy the test can cut: unreachable, the replica is not
    // read, so the cut is answered "the primary sees it" at once; a stream's later batches must not
    // go to the replica once it is reachable again, still without the rows the cut showed.
    const sockets = new Set<Socket>();
    let open = true;
    const target = new URL(urls!.replica);
    const proxy: Server = createServer((client) => {
      if (!open) return void client.destroy();
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(urls!.replica);
    proxied.port = String((proxy.address() as AddressInfo).port);
    const config = loadConfig({ ...urls!.config, DATABASE_REPLICA_URL: proxied.toString() });
    const behind = createDatabase(config.databaseUrl, { replica: config.replica });
    const behindApp = await buildApp(config, { database: behind });
    try {
      await behindApp.listen({ port: 0, host: '127.0.0.1' });
      await until('the replica to be read', () => behind.replicaUsable?.() === true);
      await replica!.query('select pg_wal_replay_pause()');
      // ~15 MB of lines, more than the sockets hold: the stream waits for the client midway.
      const ROWS = 60_000;
      const second = await nextSecond();
      await sql`insert into sales_history (order_code, client_code, client_type, source_type, city, session_id,
          delivery_method, created_at, created_nav, updated_at)
        select 'BEHIND-' || lpad(n::text, 6, '0'), 'W1000001', 'PYSIKLIENT', 'ONLINE', 'Tallinn', repeat('s', 90),
          'COURIER', ${second + 100}, ${second}, ${second + 100} from generate_series(1, ${ROWS}) n`.execute(database!.db);
      await sleep(second + 1000 + SETTLE_MS + 200 - Date.now());
      open = false;
      for (const socket of sockets) socket.destroy();
      await until('the replica not to be read', () => behind.replicaUsable?.() === false);

      const { port } = behindApp.server.address() as AddressInfo;
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: `/export/sales-history?createdFrom=${q(second)}&createdTo=${q(second)}`,
        headers: { authorization, accept: 'application/x-ndjson' },
      });
      const body = await new Promise<string>((resolve, reject) => {
        req.on('error', reject);
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.once('data', (chunk: string) => {
            text += chunk;
            // The client stops reading; the replica comes back (replay still paused) before it reads on.
            res.pause();
            open = true;
            void until('the replica to be read again', () => behind.replicaUsable?.() === true).then(() => {
              res.on('data', (more: string) => (text += more));
              res.on('end', () => resolve(text));
              res.resume();
            }, reject);
          });
        });
        req.end();
      });
      const orders = body
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { order?: string }).order);
      expect(orders.length).toBe(ROWS);
      expect(orders.at(-1)).toBe(`BEHIND-${String(ROWS).padStart(6, '0')}`);
    } finally {
      await replica!.query('select pg_wal_replay_resume()');
      await behindApp.close();
      await behind.close();
      for (const socket of sockets) socket.destroy();
      proxy.close();
    }
  }, 90_000);
});
