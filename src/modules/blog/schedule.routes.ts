import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { endOfLocalDay, localTime } from '../../infra/shop-time.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { ContentReadDeps } from './posts.routes.js';
import { CONTENT_MAX_AGE_SECONDS, contentCacheFor } from '../content/index.js';
import { scheduleOf, shownShopId } from './schedule.repository.js';
import { openState, scheduleView } from './schedule.js';
import { fallbackLanguages } from './translations.js';

const Clock = Type.Union([Type.String({ pattern: '^\\d{2}:\\d{2}$' }), Type.Null()]);
const DayHours = { closed: Type.Boolean(), opens: Clock, closes: Clock };

export const ScheduleSchema = Type.Object(
  {
    shopCode: Type.String(),
    timeZone: Type.String({ description: 'Europe/Tallinn: every time of day here is local' }),
    openNow: Type.Boolean(),
    nextChange: Type.Union([
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        opens: Type.Boolean({ description: 'true: it opens then; false: it closes' }),
      }),
      Type.Null(),
    ]),
    today: Type.Object({ date: Type.String(), ...DayHours }),
    weekdays: Type.Array(Type.Object({ weekday: Type.Integer({ description: '1 = Monday ... 7 = Sunday' }), ...DayHours })),
    exceptions: Type.Array(Type.Object({ date: Type.String(), ...DayHours, name: Type.Union([Type.String(), Type.Null()]) }), {
      description: 'Holidays and short days from today on',
    }),
  },
  { $id: 'ShopSchedule' },
);

/** GET /shop/:code/schedule: opening hours, exceptions, open now and the next change. */
export const scheduleRoutes: FastifyPluginAsyncTypebox<ContentReadDeps> = async (app, { database, caller: callerOf }) => {
  app.get(
    '/shop/:code/schedule',
    {
      schema: {
        tags: ['shops and schedules'],
        summary: "A shop's opening hours by weekday and dated exceptions, whether it is open now and the next change",
        headers: StoreRequestHeaders,
        params: Type.Object({ code: Type.String({ minLength: 1, maxLength: 40, description: 'Shop code' }) }),
        response: { 200: success(ScheduleSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const shopId = await shownShopId(database.db, request.params.code);
      if (shopId === undefined) throw new HttpError(404, 'blog.shopNotFound', { code: request.params.code.slice(0, 40) });
      const data = await scheduleOf(database.db, shopId);
      const now = request.actionTime;
      // `openNow` must not outlive the next change in a cache, nor `today` (and the exceptions from
      // today on) the day's end in Tallinn: kept past midnight, Christmas Eve's short hours were
      // shown as today's on Christmas Day.
      const next = openState(data, now).nextChange;
      const changesAt = Math.min(next === null ? Infinity : next.at, endOfLocalDay(localTime(now).date));
      const untilChange = Math.max(0, Math.floor((changesAt - now) / 1000));
      contentCacheFor(reply, caller.kind, Math.min(CONTENT_MAX_AGE_SECONDS, untilChange));
      const languages = fallbackLanguages(request.language, requestStore(request).defaultLanguage);
      return scheduleView(request.params.code, data, now, languages);
    },
  );
};
