import { Type } from '@sinclair/typebox';
import { ProductCountField } from './browse.schemas.js';

const publisherFields = {
  id: Type.Integer(),
  code: Type.String({ description: 'Publisher code of the back office' }),
  name: Type.String(),
};

export const PublisherListItemSchema = Type.Object(publisherFields, { description: 'A publisher as the publisher index lists them' });

export const PublisherDetailsSchema = Type.Object(
  { ...publisherFields, description: Type.Union([Type.String(), Type.Null()]), ...ProductCountField },
  { description: 'A publisher' },
);
