import { Type } from '@sinclair/typebox';

export const CampaignSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String({ description: 'Campaign code of the back office' }),
    name: Type.String({ description: 'In the asked language; Estonian when there is no translation' }),
    description: Type.Union([Type.String(), Type.Null()]),
    imageUrl: Type.Union([Type.String(), Type.Null()]),
    validFrom: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Start (inclusive); null: no start' }),
    validTo: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'End (exclusive); null: until further notice',
    }),
    productCount: Type.Integer({ description: 'Products of the campaign the caller can see' }),
  },
  { $id: 'Campaign', description: 'A campaign list of the store that is valid now' },
);

export const CampaignCodeParams = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 40, description: 'Campaign code of the back office' }),
});
