import { Type } from '@sinclair/typebox';

export const ProductListSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String({ description: 'Code of the list; front-ends name their main-page blocks by it' }),
    name: Type.String({ description: 'In the asked language; Estonian when there is no translation' }),
    productCount: Type.Integer({ description: 'Products of the list the caller can see' }),
  },
  { $id: 'ProductList', description: 'A curated product list of the store' },
);

export const ProductListCodeParams = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 40, description: 'Code of the product list' }),
});
