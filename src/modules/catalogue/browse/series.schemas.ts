import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../../http/paging.js';
import { NameListQuery, ProductCountField } from './browse.schemas.js';
import { literals, NamedRefSchema } from '../catalogue.schemas.js';
import { PRODUCT_SORTS } from '../product-query.js';

const seriesFields = {
  id: Type.Integer(),
  code: Type.String({ description: 'Series code of the back office' }),
  name: Type.String(),
  publisher: Type.Union([NamedRefSchema, Type.Null()]),
};

export const SeriesListItemSchema = Type.Object(seriesFields, { description: 'A series as the series index lists them' });

export const SeriesDetailsSchema = Type.Object(
  { ...seriesFields, description: Type.Union([Type.String(), Type.Null()]), ...ProductCountField },
  { description: 'A series of books' },
);

export const SeriesListQuery = Type.Object({
  ...NameListQuery.properties,
  publisherId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Only the series of this publisher' })),
});
export type SeriesListQuery = Static<typeof SeriesListQuery>;

export const SeriesProductsQuery = Type.Object({
  ...PagingQuery.properties,
  sort: Type.Optional(
    literals(
      PRODUCT_SORTS,
      'Order: seriesNumber (default: by number in the series, then newest), newest, price, -price, name, discount, sales',
    ),
  ),
});
export type SeriesProductsQuery = Static<typeof SeriesProductsQuery>;
