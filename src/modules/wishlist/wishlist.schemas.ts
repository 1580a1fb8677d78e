import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { StoreRequestHeaders } from '../../http/schemas.js';
import { ProductCardSchema } from '../catalogue/index.js';

const ProductId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Product id' });

export const WishlistHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'x-session-id': Type.Optional(Type.String({ maxLength: 200, description: "The front-end's session id, for analytics" })),
});

export const WishlistQuery = Type.Object({ ...PagingQuery.properties }, { additionalProperties: false });
export const AddToWishlistBody = Type.Object({ productId: ProductId }, { additionalProperties: false });
export const WishlistProductParams = Type.Object({ productId: ProductId });

export const WishlistItemSchema = Type.Object(
  {
    addedAt: Type.String({ format: 'date-time', description: 'When the product was added, RFC 3339 UTC' }),
    product: ProductCardSchema,
  },
  { description: "A product on the wishlist, as the catalogue shows it to the caller now (the caller's price, availability)" },
);
