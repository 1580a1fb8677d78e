import { Type } from '@sinclair/typebox';

export const ShopSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String({ description: 'Shop code of the back office (as in availability and sales history)' }),
    name: Type.String({ description: 'In the asked language; Estonian when there is no translation' }),
    city: Type.String(),
    address: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    openingHours: Type.Union([Type.String(), Type.Null()], { description: 'Free text in the asked language, e.g. "E-R 10-19, L 10-17"' }),
  },
  { $id: 'Shop', description: 'A physical shop of the chain' },
);

export const ShopCodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40, description: 'Shop code' }) });
