import { Type, type Static } from '@sinclair/typebox';
import { StoreRequestHeaders } from '../../http/schemas.js';
import { MultilineText, TextLine } from '../../http/text.js';
import { BasketSchema } from '../basket/index.js';

// Forms of the account endpoints. Every field has a length limit; a success response is the
// accepted form without secrets. Every form is closed (`closed`): a field it does not name is
// dropped, not kept. The anonymous forms are stored as sent (a registration in its outbox job, a
// wholesale application in its row), so an open one kept up to a megabyte of anything per request,
// and an address among the extra fields put that job into the export of whoever owns the address.
const closed = { additionalProperties: false } as const;

const Email = Type.String({ format: 'email', maxLength: 254, description: 'Email address' });
const Name = TextLine({ minLength: 1, maxLength: 100 });
const Phone = Type.String({
  pattern: '^\\+?[0-9][0-9 ()-]{4,24}$',
  maxLength: 30,
  description: 'Phone number, digits with an optional leading +',
});
const Password = Type.String({ maxLength: 1000, description: '8 to 128 characters; not a common password; not the email' });
export const ACCOUNT_TYPES = ['SIMPLE', 'BUSINESS', 'WHOLESALE'] as const;
const Role = Type.Union(
  ACCOUNT_TYPES.map((type) => Type.Literal(type)),
  { description: 'Account type to act as' },
);

const simpleFields = {
  email: Email,
  phone: Type.Optional(Phone),
  birthday: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
  gender: Type.Optional(Type.Union([Type.Literal('MALE'), Type.Literal('FEMALE'), Type.Literal('OTHER')])),
  newsletter: Type.Optional(Type.Boolean()),
};

/** Mobile scenario: only the email is required. */
export const MobileRegistrationForm = Type.Object(
  { ...simpleFields, firstName: Type.Optional(Name), lastName: Type.Optional(Name) },
  closed,
);
/** Web scenario: first and last name are required too. */
export const WebRegistrationForm = Type.Object({ ...simpleFields, firstName: Name, lastName: Name }, closed);
export type SimpleRegistrationForm = Static<typeof MobileRegistrationForm>;

const Address = Type.Object(
  {
    street: TextLine({ minLength: 1, maxLength: 200 }),
    city: TextLine({ minLength: 1, maxLength: 100 }),
    postcode: TextLine({ minLength: 1, maxLength: 20 }),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  },
  closed,
);

const ContactPerson = Type.Object({ firstName: Name, lastName: Name, email: Email, phone: Phone }, closed);

const businessFields = {
  companyName: TextLine({ minLength: 1, maxLength: 200 }),
  registryCode: Type.String({ pattern: '^[A-Za-z0-9-]{2,40}$', description: 'Commercial registry code' }),
  vatNumber: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}[A-Za-z0-9]{2,38}$', description: 'VAT number, e.g. EE100000000' })),
  address: Address,
  contact: ContactPerson,
};

export const BusinessRegistrationForm = Type.Object(businessFields, closed);
export type BusinessRegistrationForm = Static<typeof BusinessRegistrationForm>;

export const WholesaleRegistrationForm = Type.Object(
  {
    ...businessFields,
    expectedYearlyTurnover: Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Expected yearly purchases, euros' }),
    message: Type.Optional(MultilineText({ maxLength: 2000 })),
  },
  closed,
);
export type WholesaleRegistrationForm = Static<typeof WholesaleRegistrationForm>;

const Token = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const verificationToken = Token('The token from the verification mail');
const passwordResetToken = Token('The token from the reset mail');

/** GET verify-email-meta: the token is required in the query. */
export const VerificationTokenQuery = Type.Object({ verificationToken });
// The POST routes take the token in the query (as the spec gives it) or in the body.
export const OptionalVerificationTokenQuery = Type.Object({ verificationToken: Type.Optional(verificationToken) });
export const ResetTokenQuery = Type.Object({ passwordResetToken: Type.Optional(passwordResetToken) });

export const VerificationForm = Type.Object(
  {
    password: Password,
    passwordRepeat: Password,
    termsAccepted: Type.Boolean({ description: 'Must be true' }),
    newsletter: Type.Optional(Type.Boolean()),
    verificationToken: Type.Optional(Token('The token from the verification mail, instead of the query parameter')),
  },
  closed,
);
export type VerificationForm = Static<typeof VerificationForm>;

export const NewPasswordForm = Type.Object(
  {
    password: Password,
    passwordRepeat: Password,
    passwordResetToken: Type.Optional(Token('The token from the reset mail, instead of the query parameter')),
  },
  closed,
);
export type NewPasswordForm = Static<typeof NewPasswordForm>;

export const ResetPasswordForm = Type.Object({ email: Email }, closed);

export const LoginForm = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
    web_store_nav_code: Type.String({ maxLength: 16, description: 'Store code: WEB or WEB2' }),
    role: Type.Optional(Role),
  },
  closed,
);
export type LoginForm = Static<typeof LoginForm>;

export const SwitchStoreForm = Type.Object({ webStoreNavCode: Type.String({ maxLength: 16, description: 'Target store code' }) }, closed);

/** The headers of the endpoints that log in: the store's, and a guest's basket to merge. */
export const LoginHeaders = Type.Object({
  ...StoreRequestHeaders.properties,
  'basket-token': Type.Optional(
    Type.String({
      description:
        "A guest's basket token: its lines are merged into the client's basket in this store (one that is not a token is ignored)",
    }),
  ),
});

const ClientBasket = { ...BasketSchema, description: "The client's basket in the token's store, the guest basket merged in" };
export const TokenPayload = Type.Object({ accessToken: Type.String(), basket: ClientBasket });
export const RolesPayload = Type.Object({ roles: Type.Array(Role) });
export const VerifiedPayload = Type.Object({ accessToken: Type.String(), webStoreNavCode: Type.String(), basket: ClientBasket });
export const Empty = Type.Object({}, { description: 'Empty JSON object' });

export const VerificationMeta = Type.Object({
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  webStoreNavCode: Type.String(),
  accountType: Role,
  companyName: Type.Union([Type.String(), Type.Null()]),
  hasPassword: Type.Boolean({ description: 'Whether the user already has a password (e.g. from another store)' }),
});

export const Me = Type.Object({
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  clientCode: Type.String(),
  webStoreNavCode: Type.String(),
  role: Role,
  roles: Type.Array(Role, { description: 'Account types the user holds in this store' }),
  company: Type.Union(
    [
      Type.Object({
        name: Type.String(),
        role: Type.Union([Type.Literal('MASTER'), Type.Literal('EMPLOYEE')], {
          description:
            'MASTER manages the company users (GET /company-user) and a wholesale company its sub-companies; EMPLOYEE buys at the company prices',
        }),
      }),
      Type.Null(),
    ],
    { description: 'The company a business or wholesale account acts for, and the caller’s role there; null for a retail account' },
  ),
});
