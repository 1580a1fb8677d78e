import { Type } from '@sinclair/typebox';
import { ACCOUNT_TYPES } from '../accounts/index.js';

const text = (maxLength: number, description?: string) => Type.Optional(Type.String({ maxLength, description }));

// Providers add parameters of their own (scope, authuser, prompt, iss ...): they are let through.
export const ExternalParameters = Type.Object(
  {
    authclient: text(20, 'Web flow: google, facebook or apple; answers 302 to the provider'),
    returnUrl: text(1000, 'Web flow: a page of the store to come back to'),
    client: text(20, 'App flow: google, facebook or apple'),
    id: text(255, "App flow: the provider's user id"),
    token: text(8192, 'App flow: ID token (Google, Apple, Facebook Limited Login) or Facebook access token; an ID token is taken once'),
    nonce: text(255, 'App flow: the nonce the ID token must carry (checked whenever it is sent)'),
    state: text(500, 'Provider callback'),
    code: text(2000, 'Provider callback'),
    error: text(200, 'Provider callback'),
    user: text(2000, "Apple callback: the user's name, first authorization only"),
  },
  { additionalProperties: true },
);
export type ExternalParameters = Record<string, string | undefined>;

/**
 * The same fields may come in a POST body (JSON or a form), so that an app need not put its token
 * in a URL; Apple's callback is a form. A POST without a body takes them from the query.
 */
export const ExternalBody = {
  content: {
    'application/json': { schema: ExternalParameters },
    'application/x-www-form-urlencoded': { schema: ExternalParameters },
  },
};

export const SocialLoginForm = Type.Object({
  authId: Type.String({ minLength: 1, maxLength: 200, description: 'From /auth/external' }),
  role: Type.Optional(Type.Union(ACCOUNT_TYPES.map((type) => Type.Literal(type)))),
  isNativeForm: Type.Boolean({ description: "Whether the login came from the app's native form" }),
});

export const ConfirmLinkForm = Type.Object({
  authId: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'From the landing page of a link flow (`?link=<provider>&authId=`), within ten minutes',
  }),
});

export const LinkedAnswer = Type.Object({ linked: Type.String({ description: 'The provider now linked to the account' }) });

export const ExternalAnswer = Type.Union([
  Type.Object({ authId: Type.String({ description: 'Send to /auth/social-login within ten minutes' }) }),
  LinkedAnswer,
]);
