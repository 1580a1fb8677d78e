import type { Availability, DeliveryTime } from '../modules/catalogue/index.js';
import type { Random } from './random.js';
import type { DemoShop } from './shops.js';

// Stock per shop, and availability and delivery time that agree with it: web stock (the sum over
// open shops that sell on the web) makes a product AVAILABLE; stock only in other shops makes it
// AVAILABLE_IN_SHOP; without stock it is out of stock, or COMING_SOON when not yet released.

export type StockMode = 'normal' | 'used' | 'giftcard' | 'digital';

export interface Stock {
  rows: Array<readonly [number, number]>;
  webStock: number;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
}

export function stockFor(random: Random, shops: readonly DemoShop[], mode: StockMode, comingSoon: boolean): Stock {
  if (mode === 'digital') {
    return {
      rows: [],
      webStock: 0,
      availability: comingSoon ? 'COMING_SOON' : 'AVAILABLE',
      deliveryTime: comingSoon ? 'PREORDER' : 'INSTANT_DOWNLOAD',
    };
  }
  const rows = new Map<number, number>();
  const open = shops.filter((shop) => shop.active);
  if (comingSoon) {
    // nothing on the shelves yet
  } else if (mode === 'giftcard') {
    for (const shop of open) rows.set(shop.id, random.int(20, 200));
  } else if (mode === 'used') {
    if (random.chance(0.9)) rows.set(random.pick(open).id, 1);
  } else {
    const state = random.weighted<'web' | 'shop' | 'none'>([
      ['web', 70],
      ['shop', 13],
      ['none', 17],
    ]);
    const web = open.filter((shop) => shop.countsForWeb);
    const other = open.filter((shop) => !shop.countsForWeb);
    if (state === 'web') {
      rows.set(random.pick(web).id, random.int(1, 25));
      for (const shop of random.sample(open, random.int(0, 5)))
        rows.set(shop.id, Math.floor(Math.pow(random.next(), 2) * 12 * shop.weight));
    } else if (state === 'shop') {
      for (const shop of random.sample(other, random.int(1, 3))) rows.set(shop.id, random.int(1, 6));
    }
    // A sold-out shelf keeps its row with 0.
    if (state === 'none' && random.chance(0.2)) rows.set(random.pick(open).id, 0);
  }
  // The closed shop still has some books in its back room; they count nowhere.
  const closed = shops.find((shop) => !shop.active);
  if (closed && mode === 'normal' && random.chance(0.02)) rows.set(closed.id, random.int(1, 3));

  let webStock = 0;
  let shopStock = 0;
  for (const [shopId, quantity] of rows) {
    const shop = shops.find((s) => s.id === shopId)!;
    if (!shop.active) continue;
    if (shop.countsForWeb) webStock += quantity;
    else shopStock += quantity;
  }
  let availability: Availability;
  let deliveryTime: DeliveryTime | null;
  if (comingSoon) [availability, deliveryTime] = ['COMING_SOON', 'PREORDER'];
  else if (webStock > 0) [availability, deliveryTime] = ['AVAILABLE', 'DAYS_1_7'];
  else if (shopStock > 0) [availability, deliveryTime] = ['AVAILABLE_IN_SHOP', null];
  else if (mode === 'used' || random.chance(0.25)) [availability, deliveryTime] = ['PERMANENTLY_OUT_OF_STOCK', null];
  else [availability, deliveryTime] = ['TEMPORARILY_OUT_OF_STOCK', 'WEEKS_2_4'];
  return { rows: [...rows], webStock, availability, deliveryTime };
}
