import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../../http/paging.js';
import { LANGUAGES } from '../../../i18n/index.js';
import { IdParams, literals, NamedRefSchema } from '../catalogue.schemas.js';

export const QuoteSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    text: Type.String(),
    language: Type.String({ description: 'Language of the text: et, en, ru, ...' }),
    product: Type.Union([NamedRefSchema, Type.Null()], { description: 'The product quoted from, if any' }),
    person: Type.Union([NamedRefSchema, Type.Null()], { description: 'Who said it, if known' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Quote', description: 'A quote from a book or its author' },
);

export const QUOTE_LANGUAGES = [...LANGUAGES, 'all'] as const;

const language = Type.Optional(
  literals(
    QUOTE_LANGUAGES,
    "Only quotes in this language, or all. Default: the answer's language (x-app-language), or every language when there are none in it",
  ),
);

export const ProductQuotesQuery = Type.Object({ ...PagingQuery.properties, language });
export type ProductQuotesQuery = Static<typeof ProductQuotesQuery>;

export const QuoteQuery = Type.Object({
  ...PagingQuery.properties,
  productId: Type.Optional(IdParams.properties.id),
  personId: Type.Optional(IdParams.properties.id),
  language,
});
export type QuoteQuery = Static<typeof QuoteQuery>;
