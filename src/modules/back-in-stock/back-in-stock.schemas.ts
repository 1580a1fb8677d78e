import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

export const BackInStockBody = Type.Object(
  {
    productId: Id('Product id'),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: "Where to tell: required of a guest; a client is told at its account's email",
      }),
    ),
  },
  { additionalProperties: false },
);

export const BackInStockQuery = Type.Object({ ...PagingQuery.properties }, { additionalProperties: false });
export const BackInStockParams = Type.Object({ id: Id('Request id') });

export const BackInStockSchema = Type.Object({
  id: Type.Integer(),
  productId: Type.Integer(),
  email: Type.String({ description: 'Where the mail goes' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'Without news by then, the request is dropped (14 days)' }),
  notifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the mail was queued; null while waiting',
  }),
});

/**
 * A guest's answer: what was asked and until when, the same whether or not the address had asked
 * before (anyone may type any address, so the answer must not tell who asked for what).
 */
export const GuestBackInStockSchema = Type.Object({
  productId: Type.Integer(),
  email: Type.String({ description: 'Where the mail goes' }),
  expiresAt: Type.String({ format: 'date-time', description: 'Without news by then, the request is dropped (14 days)' }),
});

export const BackInStockListItem = Type.Object({
  ...BackInStockSchema.properties,
  productCode: Type.String(),
  productName: Type.String(),
});

export const BackInStockConfirmBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The `backInStockToken` of the confirmation link' }) },
  { additionalProperties: false },
);
