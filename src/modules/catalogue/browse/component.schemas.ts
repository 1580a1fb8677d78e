import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery, type PagingLimits } from '../../../http/paging.js';
import { ProductTypeSchema } from '../catalogue.schemas.js';

/** A main-page block shows a row or two of products: a dozen unless asked for more. */
export const COMPONENT_PAGING: PagingLimits = { defaultPerPage: 12, maxPerPage: 100 };

/** "Newest" means released within this many days (counted from the start of today, UTC) and not in the future. */
export const NEWEST_DAYS = 90;

export const ComponentQuery = Type.Object({
  page: PagingQuery.properties.page,
  'per-page': Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Items per page (default ${COMPONENT_PAGING.defaultPerPage}, at most ${COMPONENT_PAGING.maxPerPage})`,
    }),
  ),
  categoryId: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Only this category of the store and its subcategories' }),
  ),
  type: Type.Optional(ProductTypeSchema),
});
export type ComponentQuery = Static<typeof ComponentQuery>;
