import { Type } from '@sinclair/typebox';
import { StoreRequestHeaders } from '../../http/schemas.js';

const Money = (description?: string) => Type.Number({ description: description ?? 'Euros, two decimals' });

/** A code as typed: letters, digits, spaces and dashes (any letter case; dashes and spaces are ignored). */
export const GiftCardCode = Type.String({
  minLength: 4,
  maxLength: 64,
  pattern: '^[A-Za-z0-9 -]+$',
  description: 'Gift card code as printed (XXXX-XXXX-XXXX-XXXX-C); case, spaces and dashes do not matter',
});

export const GiftCardHeaders = Type.Object({ ...StoreRequestHeaders.properties });
export const BalanceQuery = Type.Object({ code: GiftCardCode }, { additionalProperties: false });

export const BalanceSchema = Type.Object(
  {
    valid: Type.Boolean({ description: 'False for a code that is unknown or expired (the rest is then 0 and null: both look the same)' }),
    balance: Money('What is left to spend; 0 when not valid'),
    currency: Type.String(),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: "A gift card's balance" },
);
