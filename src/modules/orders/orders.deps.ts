import type { DatabaseHandle } from '../../db/database.js';
import type { StoreReader } from '../../http/request-context.js';
import type { Clock } from '../../infra/clock.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import type { WrongGuesses } from '../../infra/wrong-guesses.js';
import type { OrdersSection } from './orders.config.js';
import type { BasketSection } from '../basket/index.js';
import type { DownloadsSection } from '../downloads/index.js';
import type { PaymentUrls } from './payment.service.js';
import type { OrderChecksum } from './checksum.js';
import { frontendOrderPage, orderIdQuery, orderLinkQuery } from './order-links.js';
import type { OrderRow } from './orders.repository.js';
import type { GatewayName, Gateways, LookUpPauses, PaymentStatus } from '../payments/index.js';

/** What the orders routes need; app.ts builds it. */
export interface OrdersDeps {
  database: DatabaseHandle;
  config: {
    orders: OrdersSection;
    basket: BasketSection;
    downloads: DownloadsSection;
    basePath: string;
    jobs: { maxAttempts: number };
    linkGuessesPerIp: RateLimit;
  };
  stores: StoreReader;
  /** The configured gateways by name (EveryPay with its credentials, the test gateway when on). */
  gateways: Gateways;
  /** Each gateway's pause of the look-ups callbacks and returns make, shared with the subscriptions' card returns. */
  lookUpPauses: LookUpPauses;
  clock: Clock;
  /**
   * A gateway has one callback URL for the shop: a payment no order knows (a subscription's saved
   * card or charge) is handed here. `applied` when its owner applied it, `mismatch` when its owner knows
   * it and it pays nothing there (another sum, currency or account: recorded by the owner), null when it
   * is none of the owner's.
   */
  otherPayments?: (gateway: GatewayName, status: PaymentStatus, now: number) => Promise<'applied' | 'mismatch' | null>;
}

export interface OrdersHttp extends OrdersDeps {
  checksum: OrderChecksum;
  /** Wrong checksums presented per address (a guest's order links). */
  guesses: WrongGuesses;
  urls: PaymentUrls;
}

/** The API's own URLs for the gateways, and the front-end's pages of an order. */
export function paymentUrls(deps: OrdersDeps, checksum: OrderChecksum): PaymentUrls {
  const api = `${deps.config.orders.publicUrl}${deps.config.basePath}`;
  const frontend = async (order: OrderRow) => (await deps.stores.get(order.store_code))?.frontendUrl ?? '';
  return {
    createFormUrl: (orderId) => `${api}/bank/create-form?${orderIdQuery(checksum, orderId)}`,
    returnUrl: (order) => `${api}/bank/return-internal?${orderLinkQuery(checksum, order)}`,
    callbackUrl: (gateway: GatewayName) => `${api}/payment/${gateway}/callback`,
    finishedUrl: async (order) => frontendOrderPage(await frontend(order), deps.config.orders.finishedPath, checksum, order),
    failedUrl: async (order) => frontendOrderPage(await frontend(order), deps.config.orders.failedPath, checksum, order),
  };
}
