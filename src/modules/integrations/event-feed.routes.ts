import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { bearerToken } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import { eventsAfter, positionEvents } from '../events/index.js';
import { feedClientOfToken } from './feed-clients.js';

export interface EventFeedDeps {
  database: DatabaseHandle;
}

const unauthorized = (error?: string) =>
  new HttpError(
    401,
    'integrations.feedUnauthorized',
    {},
    { 'WWW-Authenticate': `Bearer realm="storefront-events"${error ? `, error="${error}"` : ''}` },
  );

const Query = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 20, description: 'The `next` of the previous page; 0 or absent: from the first event' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

const Event = Type.Object({
  position: Type.Integer({ description: 'The cursor: pass the last one as `after`' }),
  id: Type.Integer({ description: 'The event id (the idempotency key, the same as the webhooks send)' }),
  type: Type.String(),
  stream: Type.String({ description: 'customer:<id>, email:<address> or product:<code>: events of a stream are in order' }),
  sequence: Type.Integer({ description: '1, 2, 3, ... within the stream' }),
  occurredAt: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});

const Page = Type.Object({
  events: Type.Array(Event),
  next: Type.String({ description: 'The cursor to ask with next (the same as `after` when nothing is new)' }),
});

/** The pull feed of events for platforms that poll: every event, in the order the feed positions them. */
export const eventFeedRoutes: FastifyPluginAsyncTypebox<EventFeedDeps> = async (app, { database }) => {
  const { db } = database;
  const authenticate = async (request: FastifyRequest) => {
    let token: string | undefined;
    try {
      token = request.headers.authorization?.trim() ? bearerToken(request) : undefined;
    } catch {
      throw unauthorized('invalid_request');
    }
    if (token === undefined) throw unauthorized();
    if (!(await feedClientOfToken(db, token, request.actionTime))) throw unauthorized('invalid_token');
  };

  app.get(
    '/integration/events',
    {
      config: { storeScoped: false },
      onRequest: authenticate,
      schema: {
        tags: ['integrations'],
        summary: 'Events after a cursor (customers, consents, orders, products), for platforms that poll',
        description:
          'A bearer token of a feed client (`event-feed add`). Positions only grow, and an event gets one only once ' +
          'it is committed, so a poller that passes the last `next` never misses one (docs/integrations.md).',
        security: [{ bearer: [] }],
        querystring: Query,
        response: { 200: success(Page, 'plain'), ...errors(400, 401) },
      },
    },
    async (request) => {
      const raw = request.query.after ?? '0';
      if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, 'integrations.badCursor');
      const after = Number(raw);
      await db.transaction().execute((trx) => positionEvents(trx, 1000));
      const rows = await eventsAfter(db, after, request.query.limit ?? 100);
      return {
        events: rows.map((row) => ({
          position: row.position,
          id: Number(row.id),
          type: row.type,
          stream: row.stream,
          sequence: Number(row.sequence),
          occurredAt: toRfc3339(row.created_at),
          data: JSON.parse(row.data) as Record<string, unknown>,
        })),
        next: String(rows.length > 0 ? rows[rows.length - 1]!.position : after),
      };
    },
  );
};
