import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { authenticate, type Principal } from '../../http/auth.js';
import { errors, storeRouteErrors } from '../../http/schemas.js';
import type { AccountsConfig } from '../accounts/index.js';
import { registerNoStore } from '../../http/http-cache.js';

/** What the company routes need: the database and the job settings the invitation mail is queued with. */
export interface CompaniesDeps {
  database: DatabaseHandle;
  config: Pick<AccountsConfig, 'jobs'>;
}

export const SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }];
/** Errors of every company route: no token (401), not a master of a company of the right kind (403). */
export const callerErrors = errors(...storeRouteErrors, 401, 403);

/**
 * Settles who is calling before the body is looked at (no token is a 401 whatever the body), and
 * marks every answer of the plugin `no-store`, errors included.
 */
export function bearerCaller(app: FastifyInstance, database: DatabaseHandle) {
  const principals = new WeakMap<FastifyRequest, Principal>();
  registerNoStore(app);
  return {
    requireBearer: async (request: FastifyRequest) => {
      principals.set(request, await authenticate(database.db, request));
    },
    principalOf: (request: FastifyRequest) => principals.get(request)!,
  };
}
