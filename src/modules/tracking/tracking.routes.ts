import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { optionalPrincipal } from '../../http/auth.js';
import { fieldError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { DomainError } from '../../infra/domain-error.js';
import { normaliseSessionId, type SessionActionRecorder } from './session-actions.js';
import { SessionActionBody } from './tracking.schemas.js';

/**
 * Whether a product with this back-office code is one the audience may see in the store (the
 * catalogue's visibility rule; app.ts hands it in, as the catalogue already depends on tracking).
 */
export type ProductCodeVisibility = (storeCode: string, productCode: string, businessCatalogue: boolean) => Promise<boolean>;

export interface TrackingDeps {
  database: DatabaseHandle;
  /** Buffered writer of session actions, shared with the catalogue's views; it holds the limits. */
  sessionActions: SessionActionRecorder;
  productVisible: ProductCodeVisibility;
}

/** The "events and tracking" group: actions the front-end reports for the analytics export. */
export const trackingRoutes: FastifyPluginAsyncTypebox<TrackingDeps> = async (app, { database, sessionActions, productVisible }) => {
  app.post(
    '/event/session-action',
    {
      schema: {
        tags: ['events and tracking'],
        summary: 'Record a session action (view, add to wishlist, add to basket) for analytics',
        description:
          'Queued and written in batches: the answer (202) does not wait for the write. With a bearer token the action ' +
          "is recorded under the token's client, otherwise as a guest's. An action on a product the caller cannot see (unknown, " +
          'inactive, hidden, not in the store) and a repeat of the same action within 30 s are answered the same and not ' +
          'recorded. Limited per client address and per session (429 with Retry-After).',
        headers: StoreRequestHeaders,
        security: [{}, { bearer: [] }],
        body: SessionActionBody,
        response: { 202: success(Type.Object({}), 'store'), ...errors(...storeRouteErrors, 401, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const store = requestStore(request);
      const principal = await optionalPrincipal(database.db, request);
      const sessionId = normaliseSessionId(request.body.session);
      if (sessionId === undefined) throw fieldError('session', request.language, 'validation.pattern', { field: 'session' });
      const wait = sessionActions.admit(request.ip, store.code, sessionId, request.actionTime);
      if (wait > 0) throw new DomainError('rate-limited', 'error.tooManyRequests', { seconds: wait }, wait);
      const productCode = request.body.product.trim();
      // The answer must not tell whether a hidden product exists: whatever the product, the same 202.
      const businessCatalogue = principal?.role === 'BUSINESS' || principal?.role === 'WHOLESALE';
      if (await productVisible(store.code, productCode, businessCatalogue)) {
        sessionActions.record({
          sessionId,
          storeCode: store.code,
          productCode,
          clientCode: principal?.clientCode ?? null,
          actionType: request.body.actionType,
          createdAt: request.actionTime,
        });
      }
      return reply.code(202).send({});
    },
  );
};
