import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { Money, StoreRequestHeaders } from '../../http/schemas.js';
import { BasketSchema } from '../basket/index.js';
import type { OrderStatus, PaymentState } from './orders.tables.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Contact = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  city: Type.String(),
  postcode: Type.String(),
  countryNavCode: Type.String(),
});

export const OrderLineSchema = Type.Object({
  productId: Type.Integer(),
  productCode: Type.String(),
  type: Type.String(),
  title: Type.String(),
  quantity: Type.Integer(),
  unitPrice: Money(),
  regularPrice: Money(),
  discount: Money(),
  total: Money(),
  vatRate: Type.Number(),
  digital: Type.Boolean(),
});

/**
 * How many of an order's status changes its view shows, the newest. An order's life is short (placed,
 * paid, processed, handed off, at most cancelled: about ten changes), but nothing caps the changes a
 * run of retries or sweeps may write, and the view is read by every reload of the order's page: past
 * this, older changes are left out and the answer says so (`olderStatusChangesOmitted`).
 */
export const STATUS_CHANGES_SHOWN = 50;

/**
 * What each status of an order means to its buyer (the moves: order-states.ts). A front-end shows
 * each as a label of its own, so the document lists them: as a bare string it gave no way to know
 * them but waiting for orders to reach each one.
 */
const ORDER_STATUS_MEANINGS: Record<OrderStatus, string> = {
  NEW: 'placed; its payment not started yet',
  PENDING_PAYMENT: 'waiting for the payment at the bank',
  PENDING_PROCESSING: 'paid, or nothing to pay online; waiting to be processed',
  PROCESSING: 'being processed',
  PENDING_NAV_PROCESSING: 'processed; waiting to be taken over by the back office',
  COMPLETED: 'processed and taken over by the back office',
  PAYMENT_FAILED: 'not paid: the payment was declined or cancelled',
  FAILED: 'could not be processed; the shop looks into it',
  CANCELLED: 'cancelled: left unpaid, or cancelled by the shop (a payment made is refunded)',
};

const OrderStatusSchema = Type.Union(
  (Object.keys(ORDER_STATUS_MEANINGS) as OrderStatus[]).map((status) => Type.Literal(status)),
  {
    description: Object.entries(ORDER_STATUS_MEANINGS)
      .map(([status, meaning]) => `${status}: ${meaning}`)
      .join('; '),
  },
);

const PAYMENT_STATE_MEANINGS: Record<PaymentState, string> = {
  creating: 'being started at the bank',
  pending: 'started; the bank has not said yet',
  settled: 'paid',
  failed: 'declined',
  abandoned: 'left unfinished at the bank',
  voided: 'cancelled at the bank',
  refunded: 'paid back',
};

const PaymentStateSchema = Type.Union(
  [...(Object.keys(PAYMENT_STATE_MEANINGS) as PaymentState[]).map((state) => Type.Literal(state)), Type.Null()],
  {
    description: `The latest payment's state, null before one was started: ${Object.entries(PAYMENT_STATE_MEANINGS)
      .map(([state, meaning]) => `${state}: ${meaning}`)
      .join('; ')}`,
  },
);

/** An order as its buyer sees it (GET /order/{code}, the payment summary). */
export const OrderSchema = Type.Object({
  code: Type.String(),
  store: Type.String(),
  status: OrderStatusSchema,
  createdAt: Type.String({ format: 'date-time' }),
  lines: Type.Array(OrderLineSchema),
  subtotal: Money(),
  discount: Money(),
  discountCode: Nullable(Type.String()),
  delivery: Type.Object({
    methodId: Type.Integer(),
    code: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    price: Money(),
    parcelMachine: Nullable(Type.String()),
    shopCode: Nullable(Type.String()),
    countryCode: Nullable(Type.String()),
    pickup: Type.Union(
      [
        Type.Object({
          readyAt: Nullable(Type.String({ format: 'date-time', description: 'When it was put out in the shop for the buyer' })),
          collectBy: Nullable(Type.String({ format: 'date', description: 'The last day the shop keeps it (Tallinn)' })),
          collectedAt: Nullable(Type.String({ format: 'date-time', description: 'When it was collected' })),
        }),
        Type.Null(),
      ],
      { description: "A pickup order's hand-over in the shop as the back office reported it; null until it reports one" },
    ),
  }),
  payment: Type.Object({ methodId: Type.String(), state: PaymentStateSchema }),
  vat: Money(),
  vatIncluded: Type.Boolean(),
  /** What gift cards paid of the order; total is what was left to pay after them. */
  giftCardAmount: Money(),
  total: Money(),
  shipping: Contact,
  billing: Contact,
  notes: Type.String(),
  statusHistory: Type.Array(Type.Object({ status: OrderStatusSchema, at: Type.String({ format: 'date-time' }) }), {
    description: `The newest status changes, at most ${STATUS_CHANGES_SHOWN}, oldest first.`,
  }),
  olderStatusChangesOmitted: Type.Boolean({ description: 'Whether the order has status changes older than the first in statusHistory.' }),
});

/** One order in the caller's list. */
export const OrderSummarySchema = Type.Object({
  code: Type.String(),
  status: OrderStatusSchema,
  createdAt: Type.String({ format: 'date-time' }),
  itemCount: Type.Integer(),
  giftCardAmount: Money('What gift cards paid of the order'),
  total: Money('What was left to pay after the gift cards'),
  paymentMethodId: Type.String(),
  deliveryName: Type.String(),
});

export const PaymentResultBody = Type.Object(
  { orderId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), checksum: Type.String({ maxLength: 128 }) },
  { additionalProperties: false },
);

export const PaymentResultSchema = Type.Object({
  /** SUCCESS: paid or nothing to pay online; PENDING: the gateway has not said yet; FAILED: not paid. */
  result: Type.Union([Type.Literal('SUCCESS'), Type.Literal('PENDING'), Type.Literal('FAILED')]),
  reason: Nullable(Type.String()),
  order: OrderSchema,
});

export const OrderLinkQuery = Type.Object({
  orderId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  checksum: Type.String({ maxLength: 128 }),
});

// The customer's order endpoints: GET /order, GET /order/{code}, POST /order/{code}/repeat, GET /bought-product.

/** The reads (an order list, an order, the purchase history) take the store's headers only: no basket is touched. */
export const OrderHeaders = StoreRequestHeaders;

/** The repeat writes the caller's basket: a guest's is named by its token, and its version may be checked. */
export const OrderRepeatHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'basket-token': Type.Optional(Type.String({ maxLength: 200, description: "A guest's basket token (ignored for a logged-in client)" })),
  'if-match': Type.Optional(Type.String({ maxLength: 200, description: 'The basket version (ETag) it is based on; a stale one is a 412' })),
});

export const OrderCodeParams = Type.Object({
  code: Type.String({ pattern: '^[A-Z]{2}[0-9]{1,20}$', maxLength: 22, description: 'The order code, e.g. WT00000042' }),
});

export const OrderAccessQuery = Type.Object({
  checksum: Type.Optional(
    Type.String({
      maxLength: 128,
      description: "The order id's checksum (as in the payment links and the order mail's link): how a guest reads its order",
    }),
  ),
});

export const OrderListQuery = PagingQuery;

export const RepeatAnswer = Type.Object({
  basket: BasketSchema,
  notAdded: Type.Array(
    Type.Object({
      productId: Type.Integer(),
      productCode: Type.String(),
      title: Type.String(),
      reason: Type.String({ description: "Why the basket refused it, in the caller's language" }),
    }),
  ),
});

export const BoughtProductSchema = Type.Object({
  productId: Type.Integer(),
  code: Type.String(),
  title: Type.String(),
  type: Type.String(),
  quantity: Type.Integer({ description: 'Bought in all paid orders together' }),
  lastBoughtAt: Type.String({ format: 'date-time' }),
  orderCode: Type.String({ description: 'The latest paid order with it' }),
  download: Type.Union(
    [
      Type.Object({
        entitled: Type.Boolean({ description: 'The client may download it: bought in a paid order not cancelled since' }),
        available: Type.Boolean({
          description: 'A file of it can be downloaded now (GET /download lists it); false while the file has not arrived',
        }),
      }),
      Type.Null(),
    ],
    { description: 'Downloads (e-books, audiobooks): whether the client may download it; null for the others, virtual gift cards too' },
  ),
});
