import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct, createShop, setStock } from '../../test/helpers/catalogue.js';
import { freePort, LOOPBACK, serviceEnvironment } from './child.js';

// The shop the checkout benchmark buys from, set up as the tests' (test/orders/helpers.ts) but at
// a larger size: a web warehouse, books with ample stock, a courier delivery method imported over
// the admin API, guest baskets filled over HTTP, and the outside peers a purchase needs (a back
// office that takes the hand-off, a worker process of its own).

/** Copies of each book: no checkout of the run can exhaust them. */
const AMPLE_STOCK = 1_000_000;
/** Baskets filled at once while setting up. */
const FILL_CONCURRENCY = 8;
const EXIT_GUARD = pathToFileURL(fileURLToPath(new URL('./exit-with-parent.mjs', import.meta.url))).href;

export interface BenchShop {
  shopId: number;
  productIds: number[];
  apiKey: string;
}

/** Migrates the database and writes the shop, its books and an operator's API key straight into it. */
export async function prepareShop(databaseUrl: string, products: number): Promise<BenchShop> {
  const database = createDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const db = database.db;
    const shopId = await createShop(db, { code: 'TLN1', name: 'Viru Keskus' });
    const productIds: number[] = [];
    for (let i = 0; i < products; i += 1) {
      const id = await createProduct(db, { code: `CHK${i}`, price: 10 + (i % 30), name: `Checkout book ${i}` });
      await setStock(db, id, shopId, AMPLE_STOCK);
      productIds.push(id);
    }
    const apiKey = await createApiKey(db, `bench-checkout-${Date.now()}`, Date.now());
    return { shopId, productIds, apiKey };
  } finally {
    await database.close();
  }
}

/** Imports the courier (the checkout form's delivery method) over POST /admin/import/delivery-methods; answers its id. */
export async function importCourier(base: string, apiKey: string, databaseUrl: string): Promise<number> {
  const line = {
    code: 'COURIER',
    kind: 'COURIER',
    names: { et: 'Kuller', en: 'Courier' },
    prices: [{ store: 'WEB', price: 5.9 }],
    daysMin: 1,
    daysMax: 2,
    position: 1,
  };
  const response = await fetch(`${base}/admin/import/delivery-methods`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-ndjson' },
    body: JSON.stringify(line),
  });
  if (response.status !== 200) throw new Error(`delivery-methods import: ${response.status} ${await response.text()}`);
  const database = createDatabase(databaseUrl);
  try {
    const row = await database.db.selectFrom('delivery_method').select('id').where('code', '=', 'COURIER').executeTakeFirstOrThrow();
    return Number(row.id);
  } finally {
    await database.close();
  }
}

/** The checkout form of a guest paying through the test gateway (as test/orders/helpers.ts fills it). */
export function checkoutForm(deliveryMethodId: number) {
  const contact = (prefix: string) => ({
    [`${prefix}Name`]: 'Mari Maasikas',
    [`${prefix}Email`]: 'mari@example.ee',
    [`${prefix}Phone`]: '+372 5555 1234',
    [`${prefix}Address`]: 'Pikk 1',
    [`${prefix}City`]: 'Tallinn',
    [`${prefix}Postcode`]: '10123',
    [`${prefix}CountryNavCode`]: 'EE',
  });
  return {
    ...contact('shipping'),
    ...contact('billing'),
    deliveryMethodId,
    paymentMethodId: 'TEST_GATEWAY',
    notes: '',
    termsAccepted: true,
    newsletterSubscription: false,
  };
}

/** `count` guest baskets of `lines` distinct books each, filled over HTTP as shoppers fill them; answers their tokens. */
export async function fillBaskets(base: string, ids: number[], count: number, lines: number, offset = 0): Promise<string[]> {
  const tokens = new Array<string>(count);
  let next = 0;
  const filler = async () => {
    for (let b = next++; b < count; b = next++) {
      let token: string | undefined;
      for (let l = 0; l < lines; l += 1) {
        const response = await fetch(`${base}/basket/add-product`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { 'basket-token': token } : {}) },
          body: JSON.stringify({ productId: ids[((b + offset) * 7 + l * 13) % ids.length], quantity: 1 }),
        });
        if (response.status !== 200) throw new Error(`add-product: ${response.status} ${await response.text()}`);
        token = ((await response.json()) as { basketToken: string }).basketToken;
      }
      tokens[b] = token!;
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, filler));
  return tokens;
}

/** A back office that takes every order hand-off (200), so processed orders reach COMPLETED. */
export async function startBackoffice(): Promise<{
  url: string;
  received: () => number;
  /** Deliveries per Idempotency-Key (the order code). */
  deliveries: Map<string, number>;
  close: () => Promise<void>;
}> {
  let received = 0;
  const deliveries = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      const key = String(request.headers['idempotency-key'] ?? '');
      deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, LOOPBACK, resolve));
  return {
    url: `http://${LOOPBACK}:${port}/orders`,
    received: () => received,
    deliveries,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** `storefront worker` (the compiled build) in a process of its own, on CPU 1 beside the service when `pinned`. */
export function startWorker(env: Record<string, string>, root: string, pinned: boolean): { stop: () => Promise<void> } {
  const nodeArgs = ['--import', EXIT_GUARD, 'dist/main.js', 'worker'];
  const [command, args] = pinned ? ['taskset', ['-c', '1', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    env: { ...serviceEnvironment(), ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A fresh database of its own in the PostgreSQL server at `serverUrl`; drop() removes it. */
export async function freshPostgresDatabase(serverUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
