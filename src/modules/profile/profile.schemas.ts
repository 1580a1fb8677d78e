import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { TextLine } from '../../http/text.js';

// Bodies, params and answers of the profile routes. Every body is closed (the validator drops an
// unknown field, so it can never reach a column) and every string has a length limit.

/**
 * An object of changes, the body's and each nested one's: at least one field it names. A field it
 * does not name is dropped first, so {"foo": 1} (or {"channels": {}}) is the 422 of {}, not a change
 * of nothing that still moved the user's updated_at or wrote the client's preferences row.
 */
const changes = { additionalProperties: false, minProperties: 1 } as const;
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
const Name = TextLine({ minLength: 1, maxLength: 100 });
const Phone = Type.String({
  pattern: '^\\+?[0-9][0-9 ()-]{4,24}$',
  maxLength: 30,
  description: 'Phone number, digits with an optional leading +',
});
const Language = Type.Union([Type.Literal('et'), Type.Literal('en'), Type.Literal('ru')]);
const Gender = Type.Union([Type.Literal('MALE'), Type.Literal('FEMALE'), Type.Literal('OTHER')]);
const Birthday = Type.String({ format: 'date', description: 'YYYY-MM-DD, from 1900-01-01 up to yesterday in Tallinn' });

const ConsentState = Type.Object({
  granted: Type.Boolean(),
  givenAt: Type.Union([DateTime, Type.Null()], { description: 'When it was last given; null if never' }),
  withdrawnAt: Type.Union([DateTime, Type.Null()], { description: 'When it was last withdrawn; null if never' }),
});

export const ClientAccountProfile = Type.Object({
  clientCode: Type.String({ description: 'Read-only' }),
  email: Type.String({ description: 'The login email (changed through PUT /user/me)' }),
  emailConfirmed: Type.Boolean({
    description:
      'Whether the login email is confirmed. Not for a social sign-up whose provider did not verify it: what the shop keeps by ' +
      'that address (guest orders, requests, gift cards sent to it) is not shown, and the newsletter consent is not changed ' +
      'here, until PUT /user/me with the same address and the link mailed to it confirm it, or the provider says it is verified.',
  }),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  gender: Type.Union([Gender, Type.Null()]),
  birthday: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD' }),
  language: Language,
  marketingConsents: Type.Object({
    email: ConsentState,
    sms: ConsentState,
    personalisation: ConsentState,
  }),
});

export const ClientAccountUpdate = Type.Object(
  {
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    phone: Type.Optional(nullable(Phone)),
    gender: Type.Optional(Type.Union([Gender, Type.Null()])),
    birthday: Type.Optional(nullable(Birthday)),
    language: Type.Optional(Language),
    marketingConsents: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(
            Type.Boolean({
              description: "Marketing mail: the newsletter subscription of the confirmed login email in the request's store",
            }),
          ),
          sms: Type.Optional(Type.Boolean()),
          personalisation: Type.Optional(Type.Boolean({ description: 'Offers based on what the client buys and views' })),
        },
        changes,
      ),
    ),
  },
  { ...changes, description: 'Fields left out stay as they are; null clears a field that may be empty' },
);
export type ClientAccountUpdate = Static<typeof ClientAccountUpdate>;

const Password = Type.String({ minLength: 1, maxLength: 1000 });

export const UserUpdate = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'New login email: takes effect once confirmed' })),
    currentPassword: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Required to change the password, or the email of a user who has one' }),
    ),
    newPassword: Type.Optional(Password),
    newPasswordRepeat: Type.Optional(Password),
  },
  { additionalProperties: false },
);
export type UserUpdate = Static<typeof UserUpdate>;

export const UserUpdated = Type.Object({
  email: Type.String({ description: 'The login email, unchanged until the new one is confirmed' }),
  pendingEmail: Type.Union([Type.String(), Type.Null()], { description: 'An email change waiting for its confirmation' }),
  passwordChanged: Type.Boolean(),
});

export const ConfirmEmailBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the confirmation mail' }) },
  { additionalProperties: false },
);
export const EmailConfirmed = Type.Object({ email: Type.String() });

const AddressKind = Type.Union([Type.Literal('SHIPPING'), Type.Literal('BILLING')]);
const Text = (maxLength: number) => TextLine({ minLength: 1, maxLength });

export const AddressBody = Type.Object(
  {
    kind: AddressKind,
    name: Text(200),
    phone: Type.String({ minLength: 5, maxLength: 40, pattern: '^\\+?[0-9 ()-]{5,40}$' }),
    address: Text(300),
    city: Text(100),
    postcode: Type.String({ minLength: 2, maxLength: 20, pattern: '^[A-Za-z0-9 -]+$' }),
    countryNavCode: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, one of GET /country' }),
    isDefault: Type.Optional(Type.Boolean({ description: 'Make it the default of its kind (the previous default stops being one)' })),
  },
  { additionalProperties: false },
);
export type AddressBody = Static<typeof AddressBody>;

export const AddressSchema = Type.Object({
  id: Type.Integer(),
  kind: AddressKind,
  name: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  city: Type.String(),
  postcode: Type.String(),
  countryNavCode: Type.String(),
  isDefault: Type.Boolean(),
});
export type AddressWire = Static<typeof AddressSchema>;

/** page and per-page, as every list takes them (other parameters, a cache buster, are let through). */
export const ProfileListQuery = Type.Object({ ...PagingQuery.properties });

export const AddressParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

// What each preference does (README, "client account"), for the front end's developers.
const preference = {
  newsletterLanguage: Type.Union(Language.anyOf, {
    description: "The language of the store's newsletter subscription of the confirmed login email while there is one",
  }),
  email: Type.Boolean({ description: 'With the email marketing consent: the marketing mails (wishlist offers, basket reminders) may go' }),
  sms: Type.Boolean({ description: 'Kept for the front end: the shop sends no SMS' }),
  orderUpdates: Type.Boolean({
    description:
      "Off: no reminder that a pickup order waits in the shop; the receipts (confirmation, cancellation, refund) and the pickup's ready notice always go",
  }),
  backInStock: Type.Boolean({
    description: "Off: a back-in-stock request is refused (409) and the client's earlier ones are told nothing",
  }),
  wishlistOffers: Type.Boolean({
    description: 'On (off by default): a mail when products on the wishlist cost the client less (by 5 % or more by default)',
  }),
};

export const PreferencesSchema = Type.Object({
  newsletterLanguage: preference.newsletterLanguage,
  channels: Type.Object({ email: preference.email, sms: preference.sms }),
  notifications: Type.Object({
    orderUpdates: preference.orderUpdates,
    backInStock: preference.backInStock,
    wishlistOffers: preference.wishlistOffers,
  }),
});
export type Preferences = Static<typeof PreferencesSchema>;

export const PreferencesUpdate = Type.Object(
  {
    newsletterLanguage: Type.Optional(preference.newsletterLanguage),
    channels: Type.Optional(Type.Object({ email: Type.Optional(preference.email), sms: Type.Optional(preference.sms) }, changes)),
    notifications: Type.Optional(
      Type.Object(
        {
          orderUpdates: Type.Optional(preference.orderUpdates),
          backInStock: Type.Optional(preference.backInStock),
          wishlistOffers: Type.Optional(preference.wishlistOffers),
        },
        changes,
      ),
    ),
  },
  { ...changes, description: 'Fields left out stay as they are' },
);
export type PreferencesUpdate = Static<typeof PreferencesUpdate>;

export const CategoryPreferenceSchema = Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() });

/** The most categories a client follows. */
export const MAX_FOLLOWED_CATEGORIES = 50;

export const CategoryPreferenceUpdate = Type.Object(
  {
    categories: Type.Array(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 40, description: 'Category code' }),
        Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Category id' }),
      ]),
      {
        maxItems: MAX_FOLLOWED_CATEGORIES,
        description: `At most ${MAX_FOLLOWED_CATEGORIES}: every category the client follows (replaces the list); codes or ids of this store`,
      },
    ),
  },
  { additionalProperties: false },
);
