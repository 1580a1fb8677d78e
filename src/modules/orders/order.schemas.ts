import { Type } from '@sinclair/typebox';

const Money = () => Type.Number({ description: 'Euros, two decimals' });
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

/** An order as its buyer sees it (GET /order/{code}, the payment summary). */
export const OrderSchema = Type.Object({
  code: Type.String(),
  store: Type.String(),
  status: Type.String(),
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
  }),
  payment: Type.Object({ methodId: Type.String(), state: Nullable(Type.String()) }),
  vat: Money(),
  vatIncluded: Type.Boolean(),
  total: Money(),
  shipping: Contact,
  billing: Contact,
  notes: Type.String(),
  statusHistory: Type.Array(Type.Object({ status: Type.String(), at: Type.String({ format: 'date-time' }), cause: Type.String() })),
});

/** One order in the caller's list. */
export const OrderSummarySchema = Type.Object({
  code: Type.String(),
  status: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  itemCount: Type.Integer(),
  total: Money(),
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
