import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertCategory, insertClient, insertProduct, insertSales, insertSessionActions, insertShop } from './fixtures.js';
import { clientAccountSpec, productSpec, salesHistorySpec, sessionActionSpec, shopSpec } from './spec-schemas.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
  items?: Schema;
  $ref?: string;
  anyOf?: Schema[];
  enum?: string[];
};
type Document = {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    { get: { parameters: Array<{ name: string }>; responses: Record<string, { content?: Record<string, { schema: Schema }> }> } }
  >;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
};

let t: TestApp;
let doc: Document;

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_PATH: '/partner' } });
  const response = await t.app.inject({ method: 'GET', url: '/partner/openapi.json' });
  expect(response.statusCode).toBe(200);
  doc = response.json();
});

afterAll(() => t.close());

const resolve = (schema: Schema): Schema => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)!]! : schema);

/** The spec test schema's type of a field, as a set such as {string, null}. */
function specTypes(schema: Schema): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap(specTypes).sort();
  return (Array.isArray(schema.type) ? schema.type : [schema.type!]).sort();
}
function docTypes(schema: Schema): string[] {
  const resolved = resolve(schema);
  return [resolved.type as string, ...(resolved.nullable ? ['null'] : [])].sort();
}

/** Every field of the spec with the same type and nullability, no other field, recursively. */
function expectSameShape(documented: Schema, spec: Schema, path: string): void {
  const actual = resolve(documented);
  expect(Object.keys(actual.properties ?? {}).sort(), path).toEqual(Object.keys(spec.properties ?? {}).sort());
  for (const [field, specField] of Object.entries(spec.properties ?? {})) {
    const docField = actual.properties![field]!;
    expect(docTypes(docField), `${path}.${field}`).toEqual(specTypes(specField));
    if (specField.enum) expect(resolve(docField).enum, `${path}.${field}`).toEqual(specField.enum);
    const specObject = specField.anyOf?.find((branch) => branch.type === 'object') ?? (specField.type === 'object' ? specField : undefined);
    if (specObject) expectSameShape(docField, specObject, `${path}.${field}`);
    if (specField.type === 'array' && specField.items?.type === 'object')
      expectSameShape(resolve(docField).items!, specField.items, `${path}.${field}[]`);
  }
}

describe('the export API document', () => {
  it('is OpenAPI 3, version 1.0, at the export prefix, with HTTP Basic', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0');
    expect(doc.servers).toEqual([{ url: '/partner' }]);
    expect(doc.components.securitySchemes).toEqual({ basic: { type: 'http', scheme: 'basic' } });
    expect(Object.keys(doc.paths).sort()).toEqual(['/client-account', '/product', '/sales-history', '/session', '/shop']);
    expect(doc.paths['/sales-history']!.get.parameters.map((p) => p.name)).toEqual([
      'createdFrom',
      'createdTo',
      'updatedFrom',
      'updatedTo',
      'page',
      'per-page',
    ]);
    expect(doc.paths['/product']!.get.parameters.map((p) => p.name)).toEqual(['updatedFrom', 'updatedTo', 'page', 'per-page']);
  });

  it.each([
    ['/client-account', 'ClientAccount', clientAccountSpec],
    ['/product', 'Product', productSpec],
    ['/sales-history', 'SalesHistory', salesHistorySpec],
    ['/session', 'SessionAction', sessionActionSpec],
    ['/shop', 'Shop', shopSpec],
  ])('documents %s items exactly as the spec table (%s)', (path, name, spec) => {
    const content = doc.paths[path]!.get.responses['200']!.content!;
    expect(content['application/json']!.schema).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${name}` } });
    expect(content['application/x-ndjson']!.schema).toEqual({ $ref: `#/components/schemas/${name}` });
    expectSameShape(doc.components.schemas[name]!, spec as Schema, name);
    // Only the documented date-time that may be unknown is optional (an unknown birthday is null).
    const optional = Object.keys(spec.properties).filter((field) => !doc.components.schemas[name]!.required!.includes(field));
    expect(optional).toEqual(name === 'SalesHistory' ? ['createdNav'] : []);
  });

  it('describes what the API really sends', async () => {
    const db = t.database.db;
    const { authorization } = await exportUser(db);
    const root = await insertCategory(db, 'ROOT', null, 1, { et: 'Juur' });
    const product = await insertProduct(db, { code: 'P-1', createdAt: T0 });
    await db.insertInto('product_category').values({ product_id: product, category_id: root }).execute();
    await insertClient(db, 'W1', T0);
    await insertClient(db, 'W2', T0, { birthday: null });
    await insertSales(db, [
      { order: 'O-1', createdAt: T0 },
      { order: 'O-2', createdAt: T0, createdNav: null },
    ]);
    await insertSessionActions(db, 2);
    await insertShop(db, 'S-1', T0, { et: 'Pood' });
    const ajv = addFormats(new Ajv({ strict: false }));
    ajv.addSchema({ $id: 'export', components: doc.components });
    for (const [path, name] of [
      ['/client-account', 'ClientAccount'],
      ['/product', 'Product'],
      ['/sales-history', 'SalesHistory'],
      ['/session', 'SessionAction'],
      ['/shop', 'Shop'],
    ] as const) {
      const items = (await t.app.inject({ method: 'GET', url: `/partner${path}`, headers: { authorization } })).json();
      expect(items.length, path).toBeGreaterThan(0);
      const validate = ajv.compile({ type: 'array', items: { $ref: `export#/components/schemas/${name}` } });
      expect(validate(items), `${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('is not part of the main API document, and the main document has no export routes', async () => {
    const main = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
    const paths = Object.keys(main.paths);
    expect(paths).toContain('/event/session-action');
    // (The main API has a /product group of its own; the export's routes are the prefixed ones.)
    expect(paths.filter((path) => path.startsWith('/partner'))).toEqual([]);
    expect(paths).not.toContain('/sales-history');
    // The main API's /client-account is the customer's profile (bearer), not the export's (Basic).
    expect((main.paths['/client-account']!.get as { security?: unknown }).security).toEqual([{ bearer: [] }]);
    expect((await t.app.inject({ method: 'GET', url: '/export/shop' })).statusCode).toBe(404);
  });
});
