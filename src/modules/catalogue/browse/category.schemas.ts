import { Type } from '@sinclair/typebox';
import { ProductCountField } from './browse.schemas.js';

const CategoryRefSchema = Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() });

export const CategoryTreeNodeSchema = Type.Recursive(
  (Node) =>
    Type.Object({
      id: Type.Integer(),
      code: Type.String(),
      name: Type.String(),
      level: Type.Integer({ description: 'Depth in the tree, 1 at the root' }),
      children: Type.Array(Node),
    }),
  { $id: 'CategoryTreeNode', description: 'A category with its subcategories, in display order' },
);

export const CategoryDetailsSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    level: Type.Integer({ description: 'Depth in the tree, 1 at the root' }),
    path: Type.Array(CategoryRefSchema, { description: 'Breadcrumb: from the root down to this category' }),
    children: Type.Array(Type.Object({ ...CategoryRefSchema.properties, level: Type.Integer() }), {
      description: 'Direct subcategories, in display order',
    }),
    ...ProductCountField,
  },
  { description: 'A category of the store; productCount includes its subcategories' },
);
