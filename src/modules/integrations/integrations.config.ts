import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `integrations` section of the configuration. */
export interface IntegrationsSection {
  /** Feed requests per supplier (counted in the database, so across processes). */
  supplierRateLimit: RateLimit;
}

export function readIntegrationsConfig(env: EnvReader): IntegrationsSection {
  return { supplierRateLimit: env.rateLimit('SUPPLIER_RATE_LIMIT', '60/1h') };
}
