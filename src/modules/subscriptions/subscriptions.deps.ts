import type { DatabaseHandle } from '../../db/database.js';
import type { StoreReader } from '../../http/request-context.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import type { Gateways, LookUpPauses } from '../payments/index.js';
import type { CardTokens } from './card-tokens.js';

/** What the subscription routes need; app.ts builds it. */
export interface SubscriptionsDeps {
  database: DatabaseHandle;
  gateways: Gateways;
  /** Each gateway's pause of look-ups anyone may cause (payments' look-up-pauses.ts): card returns go through it. */
  lookUpPauses: LookUpPauses;
  /** Seals the tokens of cards saved, opens them to charge (card-tokens.ts). */
  cardTokens: CardTokens;
  stores: StoreReader;
  /** The API's public URL and base path: the gateways send shoppers and callbacks back to it. */
  config: {
    publicUrl: string;
    basePath: string;
    /** Returns from the card page per address: each one may make us ask the gateway (the payment callback's limit). */
    returnRateLimit: RateLimit;
    /** Card checks started per client and per address (CARD_CHECK_RATE_LIMIT_PER_*). */
    cardChecks: { perClient: RateLimit; perIp: RateLimit };
    /** Requests to subscribe per client (SUBSCRIBE_RATE_LIMIT_PER_CLIENT). */
    subscribePerClient: RateLimit;
  };
}
