import { Type, type Static } from '@sinclair/typebox';
import { ProductCountField } from './browse.schemas.js';
import { PersonRoleSchema, SortedPagingQuery } from '../catalogue.schemas.js';

const personFields = {
  id: Type.Integer(),
  code: Type.String({ description: 'Person code of the back office' }),
  name: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
};

export const PersonListItemSchema = Type.Object(personFields, { description: 'A person as the author index lists them' });

export const PersonDetailsSchema = Type.Object(
  {
    ...personFields,
    description: Type.Union([Type.String(), Type.Null()]),
    roles: Type.Array(PersonRoleSchema, { description: 'Roles the person has in products the caller can see in this store' }),
    ...ProductCountField,
  },
  { description: 'A person (author, illustrator, translator, ...)' },
);

export const PersonProductsQuery = Type.Object({
  ...SortedPagingQuery.properties,
  role: Type.Optional(PersonRoleSchema),
});
export type PersonProductsQuery = Static<typeof PersonProductsQuery>;
