import { Type, type Static } from '@sinclair/typebox';
import { ProductTypeSchema } from '../catalogue/index.js';
import { Money, StoreRequestHeaders } from '../../http/schemas.js';
import { GiftCardCode, VirtualGiftCardInput } from '../gift-cards/index.js';

const NullableString = () => Type.Union([Type.String(), Type.Null()]);
const ProductId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Product id' });
const Notice = Type.Object({ code: Type.String(), message: Type.String() });

export const BasketHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'basket-token': Type.Optional(Type.String({ maxLength: 200, description: "A guest's basket token (ignored for a logged-in client)" })),
  'if-match': Type.Optional(
    Type.String({ maxLength: 200, description: 'The basket version (ETag) the write is based on; a stale one is a 412' }),
  ),
  'x-session-id': Type.Optional(Type.String({ maxLength: 200, description: "The front-end's session id, for analytics" })),
});

export const AddProductBody = Type.Object(
  {
    productId: ProductId,
    quantity: Type.Integer({ minimum: 1, maximum: 999, description: 'How many to add, 1-999' }),
    giftCard: Type.Optional(VirtualGiftCardInput),
  },
  { additionalProperties: false },
);
export type AddProductBody = Static<typeof AddProductBody>;

export const ChangeQuantityBody = Type.Object(
  { productId: ProductId, quantity: Type.Integer({ minimum: 0, maximum: 999, description: 'The new quantity; 0 removes the line' }) },
  { additionalProperties: false },
);

export const DeliveryMethodsQuery = Type.Object({
  countryCode: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: "Whose parcel machines to list (ISO 3166-1 alpha-2); by default the basket's delivery country, else EE",
    }),
  ),
});
export const RemoveProductQuery = Type.Object({ productId: ProductId }, { additionalProperties: false });

export const GiftCardBody = Type.Object({ code: GiftCardCode }, { additionalProperties: false });
export const GiftCardQuery = Type.Object({ code: GiftCardCode }, { additionalProperties: false });

export const DiscountBody = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 40, pattern: '^\\s*[A-Za-z0-9_-]+\\s*$', description: 'Discount code, any letter case' }),
  },
  { additionalProperties: false },
);

export const DeliveryBody = Type.Object(
  {
    deliveryMethodId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    parcelMachineId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    shopCode: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' })),
  },
  { additionalProperties: false },
);
export type DeliveryBody = Static<typeof DeliveryBody>;

/** The delivery chosen on the basket, as the basket and GET /checkout/meta show it. */
export const ChosenDeliverySchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  available: Type.Boolean({
    description:
      'False when the method was switched off or its price for the store removed, the basket no longer suits it, or its parcel machine, shop or country is gone: choose again',
  }),
  parcelMachine: Type.Union([
    Type.Object({ id: Type.Integer(), name: Type.String(), city: Type.String(), address: Type.String() }),
    Type.Null(),
  ]),
  shop: Type.Union([Type.Object({ code: Type.String(), name: Type.String() }), Type.Null()]),
  countryCode: NullableString(),
});

export const BasketItemSchema = Type.Object({
  productId: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  type: ProductTypeSchema,
  imageUrl: NullableString(),
  quantity: Type.Integer({ description: 'The quantity that counts (cut to maxQuantity)' }),
  unitPrice: Money('What this caller pays for one'),
  strikeThroughPrice: Type.Union([Money(), Type.Null()]),
  lineTotal: Money('0 for an unavailable line'),
  available: Type.Boolean(),
  availability: Type.String(),
  deliveryTime: NullableString(),
  maxQuantity: Type.Integer({ description: 'The most that may be ordered now' }),
  notice: Type.Union([Notice, Type.Null()], { description: 'Set when the line changed: UNAVAILABLE, QUANTITY_CUT, PRICE_CHANGED' }),
  giftCard: Type.Optional(
    Type.Object(
      {
        amount: Money(),
        recipientName: Type.String(),
        recipientEmail: Type.String(),
        message: Type.String(),
        senderName: Type.String({ description: "Who the card is from in the recipient's mail; '' for the store" }),
        deliveryDate: Type.String({ format: 'date' }),
      },
      { description: 'A virtual gift card line: its amount (the line price), recipient and delivery date' },
    ),
  ),
});

export const BasketSchema = Type.Object(
  {
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'Null while there is no basket' }),
    version: Type.Union([Type.String(), Type.Null()], { description: 'Changes with every write; also the ETag' }),
    basketToken: Type.Union([Type.String(), Type.Null()], {
      description: "A guest's token (also the basket-token header); null for a client",
    }),
    itemCount: Type.Integer(),
    items: Type.Array(BasketItemSchema),
    subtotal: Money(),
    discounts: Type.Array(
      Type.Object({
        code: Type.String(),
        amount: Money(),
        applied: Type.Boolean({ description: 'True only when the code changes the price: a discount, or the chosen delivery made free' }),
        reason: Type.Union([Notice, Type.Null()], {
          description:
            'Why the code changes nothing now (DELIVERY_NOT_COVERED: a free parcel-machine code with another delivery), or, while applied, ' +
            'why it takes off less than it says (OTHER_DISCOUNT_PARTLY: the products carry discounts of their own, and the larger wins line by line)',
        }),
      }),
    ),
    discountAmount: Money(),
    deliveryRequired: Type.Boolean({ description: 'False for an empty or digital-only basket' }),
    deliveryMethod: Type.Union([ChosenDeliverySchema, Type.Null()], {
      description: 'The delivery chosen with PUT /basket/delivery; POST /checkout uses it when its body names none',
    }),
    deliveryCost: Money(),
    total: Money(),
    vat: Type.Array(Type.Object({ rate: Type.Number(), net: Money(), vat: Money() })),
    vatIncluded: Type.Boolean({ description: 'False for wholesale: the totals are without VAT' }),
    giftCards: Type.Array(
      Type.Object({
        code: Type.String({ description: "The card's last four characters (the whole code is never shown back)" }),
        amount: Money('What this card pays of the basket'),
        balance: Money('What is left on the card now (0 when expired)'),
        usable: Type.Boolean({ description: 'False for a card spent or expired: take it off before checkout' }),
      }),
      { description: 'Gift cards paying for the basket, in the order they were added' },
    ),
    giftCardAmount: Money('What the gift cards pay, with VAT'),
    toPay: Money('What is left to pay: total with VAT less giftCardAmount'),
    currency: Type.String(),
    messages: Type.Optional(
      Type.Array(Notice, {
        description:
          'What a write could not do as asked: MERGE_LINES_LEFT_OUT (guest lines that did not fit stay in the guest basket), ' +
          'MERGE_QUANTITY_CAPPED (products in both baskets whose quantities added up to more than 999: cut to 999), ' +
          'MERGE_DIGITAL_ONCE (digital products in both baskets: kept once), ' +
          'MERGE_GIFT_CARDS_LEFT_OUT (guest gift cards beyond the 5 a basket takes stay in the guest basket)',
      }),
    ),
  },
  { description: 'The basket, priced for the caller now' },
);
export type BasketWire = Static<typeof BasketSchema>;

export const BasketTotalsSchema = Type.Object({ itemCount: Type.Integer(), total: Money(), currency: Type.String() });

export const DeliveryMethodSchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  kind: Type.String(),
  carrier: NullableString(),
  name: Type.String(),
  price: Money('What it costs this basket'),
  regularPrice: Money(),
  freeOver: Type.Union([Money(), Type.Null()], { description: 'Free from this sum after the discount code' }),
  estimate: Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) }),
  countries: Type.Array(Type.String()),
  countryFees: Type.Array(Type.Object({ countryCode: Type.String(), price: Money() })),
  shops: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), city: Type.String() })),
  parcelMachines: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), city: Type.String(), address: Type.String() })),
});
