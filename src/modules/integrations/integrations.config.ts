import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `integrations` section of the configuration. */
export interface IntegrationsSection {
  /** Feed requests per supplier, counted once the signature holds (in the database, so across processes). */
  supplierRateLimit: RateLimit;
  /** Feed requests per client address, signed or not, counted before anything else. */
  supplierAddressRateLimit: RateLimit;
}

export function readIntegrationsConfig(env: EnvReader): IntegrationsSection {
  return {
    supplierRateLimit: env.rateLimit('SUPPLIER_RATE_LIMIT', '60/1h'),
    supplierAddressRateLimit: env.rateLimit('SUPPLIER_RATE_LIMIT_PER_IP', '600/1h'),
  };
}
