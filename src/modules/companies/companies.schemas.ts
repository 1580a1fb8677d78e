import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { TextLine } from '../../http/text.js';

// Bodies, params and answers of the company-user and sub-company endpoints. Every body is closed (the
// validator drops a field it does not name, nested ones too, so it never reaches the service), every
// string has a length limit; an id is a positive integer (anything else is a 400 from validation).

const Name = TextLine({ minLength: 1, maxLength: 100 });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
/**
 * An object of changes: at least one field it names. A field it does not name is dropped first (so
 * {"foo": 1} is the 422 of {}, not a change of nothing that still moved the sub-company's updatedAt).
 */
const changes = { additionalProperties: false, minProperties: 1 } as const;

export const COMPANY_ROLES = ['MASTER', 'EMPLOYEE'] as const;
export type CompanyRole = (typeof COMPANY_ROLES)[number];
const Role = Type.Union(
  COMPANY_ROLES.map((role) => Type.Literal(role)),
  { description: 'MASTER manages the company users (and sub-companies of a wholesale company); EMPLOYEE buys at the company prices' },
);

export const IdParams = Type.Object({ id: Id });
export const ListQuery = PagingQuery;

export const CompanyUserInvitation = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254, description: 'Where the invitation goes' }),
    firstName: Name,
    lastName: Name,
    role: Role,
  },
  { additionalProperties: false },
);
export type CompanyUserInvitation = Static<typeof CompanyUserInvitation>;

export const CompanyUserChange = Type.Object(
  { role: Type.Optional(Role), firstName: Type.Optional(Name), lastName: Type.Optional(Name) },
  { ...changes, description: 'The fields to change; a field it does not name is dropped' },
);
export type CompanyUserChange = Static<typeof CompanyUserChange>;

export const CompanyUser = Type.Object({
  id: Type.Integer({ description: "The user's client account in the company; the id of the other company-user endpoints" }),
  clientCode: Type.String(),
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('INVITED')], {
    description: 'INVITED until the person followed the link in the invitation and set a password',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});
export type CompanyUser = Static<typeof CompanyUser>;

const Address = Type.Object(
  {
    recipient: Type.Optional(Nullable(TextLine({ minLength: 1, maxLength: 200 }))),
    street: TextLine({ minLength: 1, maxLength: 200 }),
    city: TextLine({ minLength: 1, maxLength: 100 }),
    postcode: TextLine({ minLength: 1, maxLength: 20 }),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    phone: Type.Optional(
      Nullable(Type.String({ pattern: '^\\+?[0-9][0-9 ()-]{4,24}$', maxLength: 30, description: 'Digits with an optional leading +' })),
    ),
  },
  { additionalProperties: false },
);
export type SubCompanyAddress = Static<typeof Address>;

export const MAX_ADDRESSES = 20;
const Addresses = Type.Array(Address, { maxItems: MAX_ADDRESSES, description: 'Delivery addresses; the first is the default' });
const RegistryCode = Type.String({ pattern: '^[A-Za-z0-9-]{2,40}$', description: 'Commercial registry code' });

export const SubCompanyForm = Type.Object(
  {
    name: TextLine({ minLength: 1, maxLength: 200 }),
    registryCode: Type.Optional(Nullable(RegistryCode)),
    addresses: Type.Optional(Addresses),
  },
  { additionalProperties: false },
);
export type SubCompanyForm = Static<typeof SubCompanyForm>;

export const SubCompanyChange = Type.Object(
  {
    name: Type.Optional(TextLine({ minLength: 1, maxLength: 200 })),
    registryCode: Type.Optional(Nullable(RegistryCode)),
    addresses: Type.Optional({ ...Addresses, description: 'Replaces every address of the sub-company' }),
  },
  { ...changes, description: 'The fields to change; a field it does not name is dropped' },
);
export type SubCompanyChange = Static<typeof SubCompanyChange>;

export const SubCompany = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  registryCode: Type.Union([Type.String(), Type.Null()]),
  addresses: Type.Array(
    Type.Object({
      id: Type.Integer(),
      recipient: Type.Union([Type.String(), Type.Null()]),
      street: Type.String(),
      city: Type.String(),
      postcode: Type.String(),
      countryCode: Type.String(),
      phone: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type SubCompany = Static<typeof SubCompany>;

export const Empty = Type.Object({}, { description: 'Empty JSON object' });
