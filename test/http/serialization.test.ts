import { Type } from '@sinclair/typebox';
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { foldUnions, jsonArrayBytes, jsonBytes, serializerCompiler } from '../../src/http/serialization.js';
import { ProductDetailsSchema } from '../../src/modules/catalogue/catalogue.schemas.js';

const compile = (schema: object) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' });

const details = (nulls: boolean) => ({
  id: 7,
  code: 'P7',
  name: 'Tõde ja õigus',
  type: 'BOOK',
  language: nulls ? null : 'ET',
  binding: nulls ? null : { code: 'HARD', name: 'Kõvakaaneline', extra: 'dropped' },
  year: nulls ? null : 1926,
  imageUrl: nulls ? null : 'https://img.example/7.jpg',
  authors: [{ id: 1, code: 'A1', name: 'A. H. Tammsaare' }],
  price: 19.99,
  strikeThroughPrice: nulls ? null : 24.5,
  discountPercent: nulls ? 0 : 18,
  vatIncluded: true,
  availability: 'AVAILABLE',
  deliveryTime: nulls ? null : 'DAYS_1_7',
  stockCount: 3,
  rating: { average: nulls ? null : 4.5, count: nulls ? 0 : 2 },
  releaseDate: nulls ? null : '1926-05-01',
  ean: nulls ? null : '9789985000000',
  altCodes: [],
  altNames: ['Truth and Justice'],
  description: nulls ? null : 'Romaan "viies" osas\n',
  pages: nulls ? null : 420,
  dimensions: nulls ? null : { widthMm: 130, heightMm: null, depthMm: 30 },
  weightG: null,
  vatRatePercent: 9,
  publisher: nulls ? null : { id: 3, code: 'PUB', name: 'Eesti Raamat' },
  series: nulls ? null : { id: 4, code: 'S', name: 'Klassika', number: null },
  persons: [{ id: 1, code: 'A1', name: 'A. H. Tammsaare', role: 'AUTHOR' }],
  categories: [{ id: 9, code: 'C', name: 'Romaanid', level: 2, parentId: nulls ? null : 8 }],
  images: [{ url: 'https://img.example/7.jpg', width: null, height: 600 }],
  physicalBook: null,
  ebook: nulls ? null : { id: 8, code: 'E8', name: 'Tõde ja õigus (e-raamat)' },
  availabilityByShop: [{ code: 'S1', name: 'Kesklinn', city: 'Tallinn', address: nulls ? null : 'Viru 1', quantity: 2 }],
});

describe('response serializer compiler', () => {
  it('serializes by the schema: undeclared fields are left out, as Fastify does', () => {
    const serialize = compile(Type.Object({ id: Type.Integer(), name: Type.String() }));
    expect(JSON.parse(serialize({ id: 7, name: 'Tõde ja õigus', secret: 'x' }))).toEqual({ id: 7, name: 'Tõde ja õigus' });
  });

  it('builds one serializer per distinct schema, shared by equal schemas in different objects', () => {
    const shape = () => ({ ...Type.Object({ status: Type.Integer(), message: Type.String() }), description: 'Error' });
    const first = compile(shape());
    expect(compile(shape())).toBe(first);
    const other = compile({ ...shape(), description: 'Not found' });
    expect(other).not.toBe(first);
    const withMore = compile(Type.Object({ status: Type.Integer(), message: Type.String(), extra: Type.String() }));
    expect(JSON.parse(withMore({ status: 404, message: 'm', extra: 'e' }))).toEqual({ status: 404, message: 'm', extra: 'e' });
    expect(JSON.parse(first({ status: 404, message: 'm', extra: 'e' }))).toEqual({ status: 404, message: 'm' });
  });

  it('writes a nullable union as its type with nullable: true, nested ones too, and leaves other unions alone', () => {
    const schema = JSON.parse(
      JSON.stringify(
        Type.Object({
          year: Type.Union([Type.Integer(), Type.Null()], { description: 'Year' }),
          refs: Type.Array(Type.Union([Type.Object({ id: Type.Integer() }), Type.Null()])),
          either: Type.Union([Type.String(), Type.Integer()]),
          anyOf: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
    );
    const folded = foldUnions(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(folded.properties.year).toEqual({ type: 'integer', description: 'Year', nullable: true });
    expect(folded.properties.refs!.items).toMatchObject({ type: 'object', nullable: true });
    expect(folded.properties.either).toEqual(schema.properties.either);
    // A property that happens to be called anyOf is a property, not a keyword.
    expect(folded.properties.anyOf).toEqual({ type: 'string', nullable: true });
  });

  it('writes a union of literals as a string with an enum, a nullable one too', () => {
    const role = Type.Union([Type.Literal('MASTER'), Type.Literal('EMPLOYEE')], { description: 'Role' });
    const schema = Type.Object({ role, gender: Type.Union([Type.Union([Type.Literal('MALE'), Type.Literal('FEMALE')]), Type.Null()]) });
    const folded = foldUnions(JSON.parse(JSON.stringify(schema))) as { properties: Record<string, unknown> };
    expect(folded.properties.role).toEqual({ type: 'string', enum: ['MASTER', 'EMPLOYEE'], description: 'Role' });
    expect(folded.properties.gender).toEqual({ type: 'string', enum: ['MALE', 'FEMALE'], nullable: true });
    const serialize = compile(schema);
    expect(serialize({ role: 'MASTER', gender: null })).toBe('{"role":"MASTER","gender":null}');
    expect(serialize({ role: 'EMPLOYEE', gender: 'FEMALE' })).toBe('{"role":"EMPLOYEE","gender":"FEMALE"}');
  });

  it('gives the same JSON as fast-json-stringify on the schema as written, with and without nulls', () => {
    const asWritten = fastJsonStringify(JSON.parse(JSON.stringify(ProductDetailsSchema)), { schema: {} });
    const serialize = compile(ProductDetailsSchema);
    for (const nulls of [false, true]) expect(serialize(details(nulls))).toBe(asWritten(details(nulls)));
    expect(JSON.parse(serialize(details(true))).binding).toBeNull();
  });
});

describe('JSON bodies joined from bytes', () => {
  it('are the UTF-8 bytes of the text joined as strings, whatever the pieces hold', () => {
    const pieces = ['{"a":"', Buffer.from('Война и мир 📚 €'), '","b":"õ\u2028', Buffer.from(''), '\ud800"}'];
    const asText = pieces.map((piece) => piece.toString()).join('');
    // A lone surrogate is written as U+FFFD, as writing the joined text would.
    expect(jsonBytes(pieces).equals(Buffer.from(asText))).toBe(true);
  });

  // Bodies are kept (the guest answer cache, kept cards): a Buffer under 4 KB from Buffer.allocUnsafe
  // or Buffer.from(string) is a slice of Node's shared 8 KB pool and would keep the whole slab alive.
  it('are Buffers of their own, not slices of the shared pool', () => {
    const empty = jsonArrayBytes([]);
    expect(empty.buffer.byteLength).toBe(empty.length);
    const small = jsonBytes(['{"a":', Buffer.from('1'), '}']);
    expect(small.buffer.byteLength).toBe(small.length);
  });

  it('write an array of elements, empty or not', () => {
    expect(jsonArrayBytes([]).toString()).toBe('[]');
    const elements = [{ name: 'Лев Толстой' }, { name: 'x' }, { price: 1.5 }];
    expect(jsonArrayBytes(elements.map((element) => Buffer.from(JSON.stringify(element)))).toString()).toBe(JSON.stringify(elements));
  });
});
