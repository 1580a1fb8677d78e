import type { DemoClient } from './accounts.js';
import { DAY } from './accounts.js';
import { push, type Batch, type IdBase } from './batch.js';
import type { ProductRegistry } from './product-rows.js';
import { WeightedIndex, type Random } from './random.js';
import type { DemoShop } from './shops.js';

// The export collections: orders as the back office reports them (web orders and shop sales),
// what shoppers click (views, wishlist, basket), and the categories clients follow. Orders and
// clicks favour the bestsellers; every web order leaves its ADD_TO_BASKET clicks in its session.

const DELIVERY = ['PARCEL_MACHINE_OMNIVA', 'PARCEL_MACHINE_DPD', 'COURIER', 'SHOP_PICKUP', 'EXPRESS'] as const;
const MINUTE = 60_000;

export interface ActivityOptions {
  now: number;
  orders: number;
  /** Browsing clicks besides the ones orders leave. */
  clicks: number;
  /** Rows a batch holds before it is handed to the writer. */
  batchRows: number;
}

interface StoreSampler {
  rows: number[];
  index: WeightedIndex;
}

export function* activityBatches(
  random: Random,
  ids: IdBase,
  registry: ProductRegistry,
  clients: readonly DemoClient[],
  shops: readonly DemoShop[],
  categoryIds: Record<'WEB' | 'WEB2', number[]>,
  options: ActivityOptions,
): Generator<Batch> {
  const { now } = options;
  let batch: Batch = {};
  let rows = 0;
  const flush = function* (force: boolean) {
    if (rows > 0 && (force || rows >= options.batchRows)) {
      yield batch;
      batch = {};
      rows = 0;
    }
  };

  const samplers = { WEB: sampler(registry, 1), WEB2: sampler(registry, 2) };
  const physical = sampler(registry, 3, true);
  const byStore = { WEB: clients.filter((c) => c.storeCode === 'WEB'), WEB2: clients.filter((c) => c.storeCode === 'WEB2') };
  const open = shops.filter((shop) => shop.active && shop.listed);
  const pickItems = (from: StoreSampler, count: number) => {
    const picked = new Set<number>();
    for (let tries = 0; picked.size < count && tries < count * 5; tries++) picked.add(from.rows[from.index.pick(random)]!);
    return [...picked];
  };

  for (let n = 1; n <= options.orders && clients.length > 0; n++) {
    const id = ids.sales_history++;
    const createdAt = now - Math.floor(Math.pow(random.next(), 1.5) * 180 * DAY);
    const recent = createdAt > now - 2 * DAY;
    const createdNav = random.chance(recent ? 0.5 : 0.02) ? null : createdAt - random.int(1, 120) * MINUTE;
    const count = random.weighted<number>([
      [1, 50],
      [2, 30],
      [3, 12],
      [4, 8],
    ]);
    if (random.chance(0.65)) {
      const store = random.chance(0.85) || byStore.WEB2.length === 0 ? 'WEB' : 'WEB2';
      const client = random.pick(byStore[store].length > 0 ? byStore[store] : clients);
      const items = samplers[store].rows.length > 0 ? pickItems(samplers[store], count) : [];
      if (items.length === 0) continue;
      const session = random.hex(32);
      const delivery = random.pick(DELIVERY);
      push(batch, 'sales_history', {
        id,
        order_code: `${store === 'WEB' ? 'WT' : 'WN'}${String(id).padStart(8, '0')}`,
        client_code: client.code,
        client_type: client.business ? 'ETTEVOTE' : 'PYSIKLIENT',
        source_type: 'ONLINE',
        city: client.city,
        session_id: session,
        delivery_method: delivery,
        shop_code: delivery === 'SHOP_PICKUP' ? random.pick(open).code : null,
        created_at: createdAt,
        created_nav: createdNav,
        updated_at: createdAt,
      });
      items.forEach((at, index) => {
        push(batch, 'sales_history_item', { sales_history_id: id, position: index + 1, product_code: registry.codes[at]! });
        push(batch, 'session_action', {
          id: ids.session_action++,
          session_id: session,
          store_code: store,
          product_code: registry.codes[at]!,
          client_code: client.code,
          action_type: 'ADD_TO_BASKET',
          created_at: createdAt - (items.length - index) * random.int(1, 6) * MINUTE,
        });
      });
      rows += 1 + items.length * 2;
    } else {
      const shop = random.pick(open);
      const client = random.pick(byStore.WEB.length > 0 ? byStore.WEB : clients);
      const items = physical.rows.length > 0 ? pickItems(physical, count) : [];
      if (items.length === 0) continue;
      push(batch, 'sales_history', {
        id,
        order_code: `${shop.code}-${String(id).padStart(8, '0')}`,
        client_code: client.code,
        client_type: client.business ? 'ETTEVOTE' : 'PYSIKLIENT',
        source_type: 'OFFLINE',
        city: shop.city,
        session_id: null,
        delivery_method: 'SHOP',
        shop_code: shop.code,
        created_at: createdAt,
        created_nav: createdNav,
        updated_at: createdAt,
      });
      items.forEach((at, index) =>
        push(batch, 'sales_history_item', { sales_history_id: id, position: index + 1, product_code: registry.codes[at]! }),
      );
      rows += 1 + items.length;
    }
    yield* flush(false);
  }

  // Browsing sessions: a guest or a logged-in client views a few products, sometimes keeps one.
  let clicks = 0;
  while (clicks < options.clicks) {
    const store = random.chance(0.85) ? 'WEB' : 'WEB2';
    if (samplers[store].rows.length === 0) break;
    const client = byStore[store].length > 0 && random.chance(0.4) ? random.pick(byStore[store]) : null;
    const session = random.hex(32);
    let at = now - Math.floor(random.next() * 30 * DAY);
    const length = Math.min(options.clicks - clicks, random.int(1, 12));
    for (const product of pickItems(samplers[store], length)) {
      const roll = random.next();
      const action = client !== null && roll < 0.08 ? 'ADD_TO_WISHLIST' : roll < 0.18 ? 'ADD_TO_BASKET' : 'VIEW';
      push(batch, 'session_action', {
        id: ids.session_action++,
        session_id: session,
        store_code: store,
        product_code: registry.codes[product]!,
        client_code: client?.code ?? null,
        action_type: action,
        created_at: Math.min(now, at),
      });
      at += random.int(1, 5) * MINUTE;
      clicks++;
      rows++;
    }
    if (length === 0) break;
    yield* flush(false);
  }

  for (const client of clients) {
    if (!random.chance(0.4)) continue;
    for (const categoryId of random.sample(categoryIds[client.storeCode], random.int(1, 3))) {
      push(batch, 'client_category_preference', {
        client_account_id: client.accountId,
        category_id: categoryId,
        created_at: now - random.int(1, 300) * DAY,
      });
      rows++;
    }
  }
  yield* flush(true);
}

/** Products sold in the store (bit 1 WEB, 2 WEB2; 3 either, physical only), weighted by sales. */
function sampler(registry: ProductRegistry, storeBit: number, physicalOnly = false): StoreSampler {
  const rows: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < registry.ids.length; i++) {
    if (!registry.sellable[i] || !(registry.stores[i]! & storeBit)) continue;
    const type = registry.types[i]!;
    if (type === 'VIRTUAL_GIFT_CARD' && physicalOnly) continue;
    if (physicalOnly && (type === 'EBOOK' || type === 'AUDIOBOOK')) continue;
    rows.push(i);
    weights.push(registry.weights[i]!);
  }
  return { rows, index: new WeightedIndex(weights) };
}
