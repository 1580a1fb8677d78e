import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { authenticate } from '../../http/auth.js';
import type { ProfileActor } from './profile.service.js';
import { registerNoStore } from '../../http/http-cache.js';

/**
 * What every profile route shares: answers are never stored by a cache (`no-store`, errors too),
 * and the caller is settled from the bearer token before the body is looked at (no token is a
 * 401, whatever the body). `actorOf` gives a route the caller its preValidation settled.
 */
export function profileAuth(app: FastifyInstance, db: Kysely<Database>) {
  const actors = new WeakMap<FastifyRequest, ProfileActor>();
  registerNoStore(app);
  const requireActor = async (request: FastifyRequest) => {
    const principal = await authenticate(db, request);
    actors.set(request, {
      userId: principal.userId,
      clientAccountId: principal.clientAccountId,
      storeCode: principal.storeCode,
      tokenHash: principal.tokenHash,
    });
  };
  return { requireActor, actorOf: (request: FastifyRequest) => actors.get(request)! };
}
