import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

export const CtrBody = Type.Object(
  {
    bannerId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The banner shown or clicked' }),
    placement: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'Where it was shown, e.g. header, main-page, category-page',
    }),
  },
  { additionalProperties: false },
);
export type CtrBody = Static<typeof CtrBody>;

const dateTime = (description: string) => Type.String({ format: 'date-time', maxLength: 40, description });

export const CtrReportQuery = Type.Composite([
  Type.Object({
    from: dateTime('RFC 3339: from this time (counted by the hour: its hour is included)'),
    to: dateTime('RFC 3339: until this time (its hour is included when it is not the hour start)'),
    store: Type.Optional(
      Type.String({ minLength: 1, maxLength: 16, description: 'Only this store (WEB or WEB2); all stores when absent' }),
    ),
  }),
  PagingQuery,
]);
export type CtrReportQuery = Static<typeof CtrReportQuery>;

export const CtrReportItem = Type.Object({
  store: Type.String(),
  bannerId: Type.Integer(),
  placement: Type.String(),
  views: Type.Integer(),
  clicks: Type.Integer(),
  rate: Type.Number({ description: 'Clicks per view (0 without views), rounded to 4 decimals' }),
});
