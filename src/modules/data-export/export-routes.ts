import type { TSchema } from '@sinclair/typebox';
import type { ExportCollection } from './collection.js';
import { clientAccountsCollection, salesHistoryCollection, sessionActionsCollection, shopsCollection } from './collections.js';
import { ClientAccountSchema, ProductSchema, SalesHistorySchema, SessionActionSchema, ShopSchema } from './data-export.schemas.js';
import { productsCollection } from './products.export.js';

/** A route of the export API: its collection, the item schema (and its name in the API document). */
export interface ExportRoute {
  collection: ExportCollection;
  schema: TSchema;
  schemaName: string;
  summary: string;
}

export const EXPORT_ROUTES: readonly ExportRoute[] = [
  {
    collection: clientAccountsCollection,
    schema: ClientAccountSchema,
    schemaName: 'ClientAccount',
    summary: 'Client accounts created in a window',
  },
  { collection: productsCollection, schema: ProductSchema, schemaName: 'Product', summary: 'Products, active or not' },
  {
    collection: salesHistoryCollection,
    schema: SalesHistorySchema,
    schemaName: 'SalesHistory',
    summary: 'Orders (web and shop sales) received in a window',
  },
  {
    collection: sessionActionsCollection,
    schema: SessionActionSchema,
    schemaName: 'SessionAction',
    summary: 'Session actions: views, wishlist and basket additions',
  },
  { collection: shopsCollection, schema: ShopSchema, schemaName: 'Shop', summary: 'Physical shops' },
] as ExportRoute[];

export const EXPORT_ERRORS = [400, 401, 403, 429, 500, 503] as const;
