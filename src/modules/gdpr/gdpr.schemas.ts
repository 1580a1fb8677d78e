import { Type, type Static } from '@sinclair/typebox';

export const ErasureBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'The current password; users without one (social sign-in only) leave it out',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ErasureBody = Static<typeof ErasureBody>;

export const PersonalDataExport = Type.Object(
  { exportedAt: Type.String({ format: 'date-time' }) },
  {
    additionalProperties: true,
    description:
      'Everything held about the caller, one key per part: account (user, clientAccounts, wholesaleRequests, logins), profile ' +
      '(consentHistory: each marketing consent given or withdrawn, with its store (for EMAIL, whose newsletter; null when from ' +
      'before the history kept stores and not attributable), time and source; pendingEmailChange, loginEmailConfirmed, addresses, ' +
      'preferences), catalogue (categoryPreferences, comments, ratings), ' +
      'companyMemberships, orders (with lines), giftsReceived (e-books and audiobooks others bought for the address: order date, store, ' +
      'titles, the last day of its key; nothing of the buyer), downloads (of those orders, guest orders included), baskets, newsletter, ' +
      'socialIdentities, sessionActions, salesHistory, ' +
      'subscriptions (subscriptions with their charges, saved cards without tokens, takes). ' +
      'What is kept by email and not by the account (guest orders, back-in-stock requests, newsletter rows, gift cards sent to ' +
      'the address, events and mails naming it) is included only while the login email is confirmed (loginEmailConfirmed). ' +
      'Long lists are capped (newest first) and then carry `truncated: true` and a `note`. No password or token hashes.',
  },
);
