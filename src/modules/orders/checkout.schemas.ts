import { Type, type Static } from '@sinclair/typebox';
import { StoreRequestHeaders } from '../../http/schemas.js';
import { MultilineText, TextLine } from '../../http/text.js';
import { ChosenDeliverySchema, DeliveryMethodSchema } from '../basket/index.js';
import { AddressSchema } from '../profile/index.js';

const Text = (maxLength: number, description?: string) => TextLine({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const Email = Type.String({ minLength: 3, maxLength: 254, format: 'email' });
// Each takes spaces and separators inside it, and must hold a digit (or letter) too: one of spaces
// alone passed and became an order shipped to an empty phone or postcode.
const Phone = Type.String({
  minLength: 5,
  maxLength: 40,
  pattern: '^(?=.*[0-9])\\+?[0-9 ()-]{5,40}$',
  description: 'Digits, spaces, (), -, an optional leading +',
});
const Postcode = Type.String({ minLength: 2, maxLength: 20, pattern: '^(?=.*[A-Za-z0-9])[A-Za-z0-9 -]+$' });
const CountryNavCode = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, as in GET /checkout/meta' });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const CheckoutHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'basket-token': Type.Optional(Type.String({ maxLength: 200, description: "A guest's basket token (ignored for a logged-in client)" })),
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'The same key sent again answers the first order',
    }),
  ),
  // As the basket takes it: one analytics cannot keep (session-actions.ts) is left off the order, never a reason to refuse it.
  'x-session-id': Type.Optional(Type.String({ maxLength: 200, description: "The front-end's session id, for analytics" })),
});

export const CheckoutBody = Type.Object(
  {
    // Where the parcel goes: required when the basket has anything to ship (deliveryRequired in
    // GET /checkout/meta); a basket with nothing to ship takes all of it or none (then the billing contact).
    shippingName: Type.Optional(Text(200)),
    shippingEmail: Type.Optional(Email),
    shippingPhone: Type.Optional(Phone),
    shippingAddress: Type.Optional(Text(300)),
    shippingCity: Type.Optional(Text(100)),
    shippingPostcode: Type.Optional(Postcode),
    shippingCountryNavCode: Type.Optional(CountryNavCode),
    billingName: Text(200),
    billingEmail: Email,
    billingPhone: Phone,
    billingAddress: Text(300),
    billingCity: Text(100),
    billingPostcode: Postcode,
    billingCountryNavCode: CountryNavCode,
    deliveryMethodId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'The delivery for a basket with anything to ship (deliveryRequired). Left out: the one chosen on the basket ' +
          "(PUT /basket/delivery, chosenDelivery in GET /checkout/meta), judged by the same rules; named: it wins over the basket's, " +
          'and the order is priced with it',
      }),
    ),
    parcelMachineId: Type.Optional({
      ...Id,
      description: 'With deliveryMethodId: the parcel machine (named without it: a 422 on deliveryMethodId)',
    }),
    shopCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: 'With deliveryMethodId: the pickup shop (named without it: a 422 on deliveryMethodId)',
      }),
    ),
    paymentMethodId: Type.String({ minLength: 1, maxLength: 40, description: 'One of the ids in GET /checkout/meta' }),
    notes: Type.Optional(MultilineText({ maxLength: 1000 })),
    termsAccepted: Type.Boolean({ description: 'Must be true' }),
    newsletterSubscription: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CheckoutBody = Static<typeof CheckoutBody>;

export const CheckoutAnswer = Type.Object({
  location: Type.String({ description: '<api>/bank/create-form?orderId=…&checksum=…: where the front-end goes next' }),
});

const PaymentMethodSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** Whether the shopper is sent to a payment page. */
  online: Type.Boolean(),
  /** Delivery method kinds it goes with; null: any. */
  deliveryKinds: Type.Union([Type.Array(Type.String()), Type.Null()]),
});

const ContactSchema = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  phone: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()]),
  city: Type.Union([Type.String(), Type.Null()]),
  postcode: Type.Union([Type.String(), Type.Null()]),
  countryNavCode: Type.Union([Type.String(), Type.Null()]),
});

export const CheckoutMetaSchema = Type.Object({
  /** False for a basket with nothing to ship (digital items only): no delivery method or shipping address is asked. */
  deliveryRequired: Type.Boolean({
    description: 'False for an empty basket or one of digital items only: checkout then takes no delivery method or shipping address',
  }),
  deliveryMethods: Type.Array(DeliveryMethodSchema),
  chosenDelivery: Type.Union([ChosenDeliverySchema, Type.Null()], {
    description:
      'The delivery chosen on the basket (PUT /basket/delivery), which POST /checkout uses when its body names none; ' +
      'null when none is chosen; available: false when it no longer holds for this basket, its method switched off or no longer priced in the store too ' +
      '(a checkout without a delivery is then a 422 on its field)',
  }),
  paymentMethods: Type.Array(PaymentMethodSchema),
  countries: Type.Array(Type.Object({ navCode: Type.String(), name: Type.String(), isDefault: Type.Boolean() })),
  /** A logged-in client's saved contact data; null for a guest. */
  contact: Type.Union([ContactSchema, Type.Null()]),
  /** A logged-in client's saved addresses (GET /client-account/address), shipping first; empty for a guest. */
  addresses: Type.Array(AddressSchema),
});
