import { Type, type Static } from '@sinclair/typebox';
import { LANGUAGES } from '../../i18n/index.js';

export const SubscribeForm = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254, description: 'Address to subscribe; a confirmation link is mailed to it' }),
  language: Type.Optional(
    Type.Union(
      LANGUAGES.map((language) => Type.Literal(language)),
      { description: "Language of the newsletter: et, en or ru; by default the request's (x-app-language, else the store's default)" },
    ),
  ),
  source: Type.Optional(
    Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,39}$', description: 'Where the form was (e.g. footer, checkout); `website` by default' }),
  ),
});
export type SubscribeForm = Static<typeof SubscribeForm>;

export const ConfirmForm = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The `newsletterToken` of the confirmation link' }),
});

export const Confirmed = Type.Object({
  email: Type.String(),
  store: Type.String({ description: 'Store code of the subscription' }),
  language: Type.String(),
});

/** The signed link's query (as in the List-Unsubscribe header and the mail's unsubscribe page). */
export const UnsubscribeQuery = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  store: Type.String({ minLength: 1, maxLength: 10 }),
  signature: Type.String({ minLength: 1, maxLength: 200 }),
});

export const Empty = Type.Object({});
