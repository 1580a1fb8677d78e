import { Type } from '@sinclair/typebox';
import { StoreRequestHeaders } from '../../../http/schemas.js';
import { PriceFields, ProductCardSchema, ShopAvailabilitySchema } from '../catalogue.schemas.js';

// Wire shapes of the product page and its parts (the card and the details are shared: catalogue.schemas.ts).

export const ProductPageHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'x-session-id': Type.Optional(Type.String({ description: "The shopper's session; a product view is recorded under it for analytics" })),
});

export const ProductCodeParams = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 40, description: 'Product code of the back office' }),
});

export const AssetSchema = Type.Object({
  kind: Type.Union([Type.Literal('IMAGE'), Type.Literal('SAMPLE'), Type.Literal('AUDIO_SAMPLE'), Type.Literal('VIDEO')]),
  url: Type.String(),
  mimeType: Type.Union([Type.String(), Type.Null()]),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
});

export const PricesSchema = Type.Object({
  ...PriceFields,
  vatRatePercent: Type.Number(),
  currency: Type.String(),
  campaign: Type.Union(
    [
      Type.Object({ code: Type.String(), name: Type.String(), validTo: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]) }),
      Type.Null(),
    ],
    { description: 'The campaign whose price the caller gets, if any' },
  ),
});

export const AvailabilitySchema = Type.Object({
  availability: ProductCardSchema.properties.availability,
  deliveryTime: ProductCardSchema.properties.deliveryTime,
  stockCount: Type.Integer({ description: 'Units that can be sold on the web' }),
  shops: Type.Array(ShopAvailabilitySchema),
});
