import type { DatabaseHandle } from '../../db/database.js';
import type { IdentityConfig } from './identity.service.js';

/** What the profile routes need: the database and the accounts settings the identity changes keep to. */
export interface ProfileDeps {
  database: DatabaseHandle;
  config: IdentityConfig;
}
