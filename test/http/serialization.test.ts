import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { serializerCompiler } from '../../src/http/serialization.js';

const compile = (schema: object) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' });

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
});
