import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../../http/paging.js';

// Query shapes shared by the browse lists (authors, publishers, series).

// Control characters (NUL above all: PostgreSQL refuses it in text) are never part of a name.
const PRINTABLE = '^[^\\x00-\\x1f\\x7f]*$';

export const NameListQuery = Type.Object({
  ...PagingQuery.properties,
  q: Type.Optional(
    Type.String({ maxLength: 100, pattern: PRINTABLE, description: 'Name prefix, case-insensitive; empty means no filter' }),
  ),
  letter: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1, pattern: PRINTABLE, description: 'First letter of the name, case-insensitive' }),
  ),
});
export type NameListQuery = Static<typeof NameListQuery>;

export const ProductCountField = {
  productCount: Type.Integer({ description: 'Products the caller can see in this store' }),
};
