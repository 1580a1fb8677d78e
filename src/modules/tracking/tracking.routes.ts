import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { authenticate } from '../../http/auth.js';
import { fieldError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { normaliseSessionId, type SessionActionRecorder } from './session-actions.js';
import { productExists } from './session-actions.repository.js';
import { SessionActionBody } from './tracking.schemas.js';

export interface TrackingDeps {
  database: DatabaseHandle;
  /** Buffered writer of session actions, shared with the catalogue's views. */
  sessionActions: SessionActionRecorder;
}

/** The "events and tracking" group: actions the front-end reports for the analytics export. */
export const trackingRoutes: FastifyPluginAsyncTypebox<TrackingDeps> = async (app, { database, sessionActions }) => {
  app.post(
    '/event/session-action',
    {
      schema: {
        tags: ['events and tracking'],
        summary: 'Record a session action (view, add to wishlist, add to basket) for analytics',
        description:
          'Queued and written in batches: the answer (202) does not wait for the write. With a bearer token the action ' +
          "is recorded under the token's client, otherwise as a guest's.",
        headers: StoreRequestHeaders,
        security: [{}, { bearer: [] }],
        body: SessionActionBody,
        response: { 202: success(Type.Object({}), 'store'), ...errors(...storeRouteErrors, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const store = requestStore(request);
      const principal = request.headers.authorization === undefined ? undefined : await authenticate(database.db, request);
      const sessionId = normaliseSessionId(request.body.session);
      if (sessionId === undefined) throw fieldError('session', request.language, 'validation.pattern', { field: 'session' });
      const productCode = request.body.product.trim();
      if (!(await productExists(database.db, productCode))) {
        throw fieldError('product', request.language, 'tracking.unknownProduct', { code: productCode.slice(0, 40) });
      }
      sessionActions.record({
        sessionId,
        storeCode: store.code,
        productCode,
        clientCode: principal?.clientCode ?? null,
        actionType: request.body.actionType,
        createdAt: request.actionTime,
      });
      return reply.code(202).send({});
    },
  );
};
