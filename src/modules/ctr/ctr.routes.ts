import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { authenticateOperator } from '../admin/index.js';
import { normaliseSessionId } from '../tracking/index.js';
import type { CtrEvent, CtrRecorder } from './ctr-recorder.js';
import { CtrBody, CtrReportItem, CtrReportQuery } from './ctr.schemas.js';
import { bannerCtrReport, CTR_RETENTION_DAYS, MAX_REPORT_DAYS } from './ctr.service.js';

export interface CtrDeps {
  database: DatabaseHandle;
  /** Adds views and clicks up in memory and writes them in batches; it holds the caps. */
  recorder: CtrRecorder;
}

/** Banner click-through statistics: the front-end's reports, and the operators' report. */
export const ctrRoutes: FastifyPluginAsyncTypebox<CtrDeps> = async (app, { database, recorder }) => {
  for (const event of ['view', 'click'] as const satisfies readonly CtrEvent[]) {
    app.post(
      `/ctr/${event}`,
      {
        schema: {
          tags: ['banner click-through statistics'],
          summary: `Counts a banner ${event} for the click-through statistics`,
          description:
            'Counted in memory and written in batches: the answer (202) never waits for the database. One session ' +
            '(`x-session-id`, else the client address) counts at most CTR_CAP_PER_SESSION_BANNER of one banner; beyond ' +
            'that, and for a banner that does not exist, the answer is the same and nothing is counted.',
          headers: StoreRequestHeaders,
          body: CtrBody,
          response: { 202: success(Type.Object({})), ...errors(...storeRouteErrors, 413, 415, 422) },
        },
      },
      async (request, reply) => {
        recorder.record({
          event,
          storeCode: requestStore(request).code,
          bannerId: request.body.bannerId,
          placement: request.body.placement,
          sessionId: normaliseSessionId(request.headers['x-session-id']),
          address: request.ip,
          now: request.actionTime,
        });
        reply.header('Cache-Control', 'no-store');
        return reply.code(202).send({});
      },
    );
  }

  app.get(
    '/admin/ctr',
    {
      config: { storeScoped: false },
      onRequest: async (request) => {
        await authenticateOperator(database.db, request);
      },
      schema: {
        tags: ['admin'],
        summary: 'Banner views, clicks and click-through rate per store, banner and placement over a period, most viewed first',
        description:
          `A period covers at most ${MAX_REPORT_DAYS} days. Hours older than ${CTR_RETENTION_DAYS} days are deleted by the hourly ` +
          'maintenance (the longest period and the same period a year before, and a month to spare); a `from` before them is a 422.',
        security: [{ bearer: [] }],
        querystring: CtrReportQuery,
        response: { 200: success(Type.Array(CtrReportItem), 'list'), ...errors(400, 401, 422, 500) },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { from, to, store } = request.query;
      const { lines, total } = await bannerCtrReport(database.db, {
        from,
        to,
        ...(store !== undefined && { store }),
        page,
        now: request.actionTime,
      });
      setPaginationHeaders(request, reply, page, total);
      reply.header('Cache-Control', 'no-store');
      return lines;
    },
  );
};
