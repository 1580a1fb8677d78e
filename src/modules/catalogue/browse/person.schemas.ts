import { Type, type Static } from '@sinclair/typebox';
import { NameListQuery, ProductCountField } from './browse.schemas.js';
import { PersonRoleSchema, SortedPagingQuery } from '../catalogue.schemas.js';

const personFields = {
  id: Type.Integer(),
  code: Type.String({ description: 'Person code of the back office' }),
  name: Type.String({ description: 'As the person is called, given names first ("A. H. Tammsaare")' }),
  sortName: Type.String({ description: 'As the author index files them, surname first ("Tammsaare, A. H.")' }),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
};

export const PersonListItemSchema = Type.Object(personFields, { description: 'A person as the author index lists them' });

export const AuthorListQuery = Type.Object({
  ...NameListQuery.properties,
  q: Type.Optional(
    Type.String({
      ...NameListQuery.properties.q,
      description:
        'Start of the name or of the sort name ("Jaan" and "Kross" both find Jaan Kross), case-insensitive; empty means no filter',
    }),
  ),
  letter: Type.Optional(
    Type.String({ ...NameListQuery.properties.letter, description: 'First letter of the sort name (the surname), case-insensitive' }),
  ),
});

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
