import { Type, type Static } from '@sinclair/typebox';

export const SessionActionBody = Type.Object(
  {
    session: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^\\s*[A-Za-z0-9._:-]{1,100}\\s*$',
      description: "The front-end's session id (the x-session-id token): letters, digits and . _ : -, at most 100",
    }),
    product: Type.String({ minLength: 1, maxLength: 40, description: 'Product code' }),
    actionType: Type.Union([Type.Literal('VIEW'), Type.Literal('ADD_TO_WISHLIST'), Type.Literal('ADD_TO_BASKET')], {
      description: 'What the shopper did',
    }),
  },
  { additionalProperties: false },
);
export type SessionActionBody = Static<typeof SessionActionBody>;
