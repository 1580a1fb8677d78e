import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

// TypeBox of the operators' order endpoints.

const dateTime = (description: string) => Type.String({ format: 'date-time', maxLength: 40, description });

export const OrderFeedQuery = Type.Composite([
  Type.Object({
    updatedSince: Type.Optional(dateTime('RFC 3339: orders changed at or after this time (all when absent)')),
    after: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,16}\\.[0-9]{1,16}$',
        maxLength: 33,
        description:
          'Where a walk goes on: the X-Next-Cursor of the page before (the orders after its last one). Page numbers shift when an ' +
          'order read on an earlier page changes meanwhile (it moves to the end); a walk by cursor misses none. Not with `page`.',
      }),
    ),
  }),
  PagingQuery,
]);
export type OrderFeedQuery = Static<typeof OrderFeedQuery>;

export const OrderCodeParams = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 20, pattern: '^[A-Za-z0-9-]+$', description: 'Order code, e.g. WT000123' }),
});

export const NavStatusBody = Type.Object(
  {
    status: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^\\S(.*\\S)?$',
      description: "The back office's own status of the order",
    }),
    createdAt: dateTime('When the back office created the order, RFC 3339'),
  },
  { additionalProperties: false },
);
export type NavStatusBody = Static<typeof NavStatusBody>;

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'Euros to refund; all that is left of the payment when absent' }),
    ),
  },
  // Closed, and an unknown field is refused (the route's refuseUnknownFields), not dropped as elsewhere:
  // {"amout": 5} must not become a refund of everything.
  { additionalProperties: false },
);
export type RefundBody = Static<typeof RefundBody>;

export const RefundHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\x21-\\x7e]+$',
      description: "The operator's own key of this refund: sent again with it, the refund is made once and its result answered",
    }),
  ),
});

const money = Type.Number({ description: 'Euros, two decimals' });
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const contact = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  city: Type.String(),
  postcode: Type.String(),
  country: Type.String(),
});

/** The whole order, as the hand-off posts it to the back office and the feed lists it. */
export const OrderDocumentSchema = Type.Object({
  code: Type.String(),
  store: Type.String(),
  language: Type.String(),
  status: Type.String(),
  statusChangedAt: nullableTime,
  createdAt: nullableTime,
  updatedAt: nullableTime,
  customer: Type.Object({ kind: Type.String({ description: 'GUEST, SIMPLE, BUSINESS or WHOLESALE' }), clientCode: nullableString }),
  billing: contact,
  shipping: contact,
  notes: Type.String(),
  newsletter: Type.Boolean(),
  lines: Type.Array(
    Type.Object({
      position: Type.Integer(),
      productCode: Type.String(),
      productType: Type.String(),
      title: Type.String(),
      quantity: Type.Integer(),
      unitPrice: money,
      regularPrice: money,
      discount: money,
      total: money,
      vatRate: Type.Number(),
      digital: Type.Boolean(),
    }),
  ),
  delivery: Type.Object({
    methodCode: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    parcelMachineId: Type.Union([Type.Integer(), Type.Null()]),
    parcelMachineName: nullableString,
    shopCode: nullableString,
    country: nullableString,
    price: money,
    vatRate: Type.Number(),
  }),
  amounts: Type.Object({
    currency: Type.Literal('EUR'),
    subtotal: money,
    discount: money,
    discountCode: nullableString,
    delivery: money,
    vat: money,
    vatIncluded: Type.Boolean(),
    giftCardAmount: Type.Number({ description: 'Euros the gift cards paid of the order, two decimals' }),
    total: Type.Number({ description: 'Euros left to pay after the gift cards (what the payment is for), two decimals' }),
  }),
  payment: Type.Object({
    method: Type.String(),
    gateway: nullableString,
    reference: nullableString,
    state: nullableString,
    amount: Type.Union([money, Type.Null()]),
    refunded: Type.Union([money, Type.Null()]),
  }),
  backOffice: Type.Object({ handedOffAt: nullableTime, status: nullableString, createdAt: nullableTime }),
});

export const ReadyForPickupBody = Type.Object(
  {
    collectBy: Type.String({
      format: 'date',
      description: 'The last day the shop keeps the order, YYYY-MM-DD in Tallinn: today up to 60 days ahead',
    }),
  },
  { additionalProperties: false },
);
export type ReadyForPickupBody = Static<typeof ReadyForPickupBody>;

const nullableDateTime = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const PickupSchema = Type.Object({
  code: Type.String(),
  shopCode: Type.Union([Type.String(), Type.Null()], { description: 'The shop it is collected in, as chosen at checkout' }),
  readyAt: nullableDateTime('When the back office first reported it ready'),
  collectBy: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The last day the shop keeps it' }),
  collectedAt: nullableDateTime('When the back office first reported it collected'),
});
