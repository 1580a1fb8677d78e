import { Type, type Static } from '@sinclair/typebox';
import { MultilineText, TextLine } from '../../http/text.js';
import { ShopSchema } from '../catalogue/index.js';

export const ContactBody = Type.Object(
  {
    // One line each, no control characters: the name and subject go into mail headers.
    name: TextLine({ minLength: 1, maxLength: 100, description: "The sender's name" }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'Where the answer (and the acknowledgement) goes' }),
    subject: TextLine({ minLength: 1, maxLength: 200 }),
    message: MultilineText({ minLength: 1, maxLength: 5000, description: 'Plain text' }),
    orderCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        pattern: '^\\s*[A-Za-z0-9._-]{1,40}\\s*$',
        description: 'The order this is about, if any',
      }),
    ),
    website: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'Honeypot: the form hides this field from people and sends it empty. A message with it filled in is answered the same and not sent.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ContactBody = Static<typeof ContactBody>;

export const ContactSchema = Type.Object(
  {
    store: Type.Object({
      code: Type.String(),
      name: Type.String({ description: "The store's name" }),
      companyName: Type.Union([Type.String(), Type.Null()], { description: 'The company behind the store' }),
      email: Type.Union([Type.String(), Type.Null()], { description: "The office's email address" }),
      phone: Type.Union([Type.String(), Type.Null()]),
      address: Type.Union([Type.String(), Type.Null()], { description: "The office's postal address" }),
    }),
    shops: Type.Array(Type.Object({ ...ShopSchema.properties }), { description: 'The active shops in display order' }),
  },
  { $id: 'Contact' },
);
