import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { Money, StoreRequestHeaders } from '../../http/schemas.js';

/** A code as typed: letters, digits, spaces and dashes (any letter case; dashes and spaces are ignored). */
export const GiftCardCode = Type.String({
  minLength: 4,
  maxLength: 64,
  pattern: '^[A-Za-z0-9 -]+$',
  description: 'Gift card code as printed (XXXX-XXXX-XXXX-XXXX-C); case, spaces and dashes do not matter',
});

export const GiftCardHeaders = Type.Object({ ...StoreRequestHeaders.properties });
export const BalanceQuery = Type.Object({ code: GiftCardCode }, { additionalProperties: false });
export const VirtualGiftCardListQuery = Type.Object({ ...PagingQuery.properties }, { additionalProperties: false });

const EXPIRES_AT =
  'When the card stops working. A card valid through a day (a physical card’s date; a virtual card’s, a year after its delivery) expires at that day’s end in the shop’s time zone (Europe/Tallinn): valid through 2027-12-31, 2027-12-31T22:00:00.000Z';

export const BalanceSchema = Type.Object(
  {
    valid: Type.Boolean({ description: 'False for a code that is unknown or expired (the rest is then 0 and null: both look the same)' }),
    balance: Money('What is left to spend; 0 when not valid'),
    currency: Type.String(),
    expiresAt: Type.Union([Type.String({ format: 'date-time', description: EXPIRES_AT }), Type.Null()]),
  },
  { description: "A gift card's balance" },
);

export const VirtualGiftCardSchema = Type.Object({
  id: Type.Integer(),
  role: Type.Union([Type.Literal('BOUGHT'), Type.Literal('RECEIVED')], {
    description: 'BOUGHT by the caller, or RECEIVED (mailed to the caller’s email); a card the caller sent itself is BOUGHT',
  }),
  code: Type.Union([Type.String(), Type.Null()], {
    description: 'The last four characters of the code once mailed (the whole code is only in the recipient’s mail)',
  }),
  amount: Money('What the card was bought for'),
  balance: Money('What is left on it'),
  expiresAt: Type.String({ format: 'date-time', description: EXPIRES_AT }),
  recipientName: Type.String(),
  recipientEmail: Type.String(),
  message: Type.String(),
  deliveryAt: Type.String({ format: 'date-time' }),
  delivered: Type.Boolean(),
  undeliverable: Type.Boolean({
    description:
      'The recipient’s mail server said the address does not exist: the card is not delivered, its buyer was mailed, and the shop sends it on to the address the buyer gives',
  }),
});
