import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const Form = Type.Object({
  email: Type.String({ format: 'email', maxLength: 100 }),
  name: Type.String({ minLength: 1, maxLength: 10 }),
  count: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
  birthday: Type.Optional(Type.String({ format: 'date' })),
});

let t: TestApp;
let handled = 0;
beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app) => {
      app.post('/test/form', { config: { storeScoped: true }, schema: { body: Form } }, async (request) => {
        handled += 1;
        return request.body;
      });
      app.get('/test/crash', { config: { storeScoped: false } }, async () => {
        throw new Error('connection string postgres://secret@db/internal failed');
      });
    },
  });
});
afterAll(() => t.close());

const post = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/test/form',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('a JSON body', () => {
  it('that is valid reaches the handler', async () => {
    const before = handled;
    const response = await post({ email: 'a@b.ee', name: 'Mari' });
    expect(response.statusCode).toBe(200);
    expect(handled).toBe(before + 1);
    expect(response.json()).toEqual({ email: 'a@b.ee', name: 'Mari' });
  });

  it('with a missing field is a 422 naming it', async () => {
    const fields = expectFieldErrors(await post({ email: 'a@b.ee' }));
    expect(fields).toEqual(['name']);
  });

  it('reports every bad field at once', async () => {
    const fields = expectFieldErrors(await post({ email: 'not-an-email', name: '', count: 9, birthday: '2020-13-45' }));
    expect(fields.sort()).toEqual(['birthday', 'count', 'email', 'name']);
  });

  it('with a wrong type is a 422 and is not coerced', async () => {
    const before = handled;
    expect(expectFieldErrors(await post({ email: 'a@b.ee', name: 123 }))).toEqual(['name']);
    expect(expectFieldErrors(await post({ email: 'a@b.ee', name: 'x', count: '2' }))).toEqual(['count']);
    expect(expectFieldErrors(await post({ email: 'a@b.ee', name: 'x', count: 1.5 }))).toEqual(['count']);
    expect(handled).toBe(before);
  });

  it('with a NUL character in any string is a 422 naming the field', async () => {
    const before = handled;
    const response = await post({ email: 'a@b.ee', name: 'Ma\u0000ri' }, { 'x-app-language': 'en' });
    expect(response.json()).toEqual([{ field: 'name', message: 'name contains characters that are not allowed.' }]);
    expect(response.statusCode).toBe(422);
    expect(handled).toBe(before);
  });

  it('nested deeper than 64 levels is a 422 naming its field, not a stack overflow', async () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const before = handled;
    // An open schema keeps an unknown field: nested 100,000 levels deep it overflowed the NUL check (a 500).
    const response = await post(`{"email":"a@b.ee","name":"Mari","extra":${nested(100_000)}}`, { 'x-app-language': 'en' });
    expect(response.json()).toEqual([{ field: 'extra', message: 'extra is nested more than 64 levels deep.' }]);
    expect(response.statusCode).toBe(422);
    expect(handled).toBe(before);
    expect((await post(`{"email":"a@b.ee","name":"Mari","extra":${nested(60)}}`)).statusCode).toBe(200);
  });

  it('with a too long value is a 422', async () => {
    expect(expectFieldErrors(await post({ email: 'a@b.ee', name: 'x'.repeat(11) }))).toEqual(['name']);
  });

  it('answers field messages in the language asked', async () => {
    const english = await post({ email: 'nope', name: 'x' }, { 'x-app-language': 'en' });
    expect(english.json()).toEqual([{ field: 'email', message: 'email is not a valid email address.' }]);
    const estonian = await post({ email: 'nope', name: 'x' }, { 'x-app-language': 'et' });
    expect(estonian.json()[0].message).toBe('email ei ole korrektne e-posti aadress.');
  });

  it('that is malformed JSON is a 400', async () => {
    expectErrorBody(await post('{"email": "a@b.ee",'), 400, 'Bad Request');
  });

  it('that is empty is a 400', async () => {
    expectErrorBody(await post(''), 400, 'Bad Request');
  });

  it.each([
    ['an array', []],
    ['a string', 'text'],
    ['null', null],
    ['a number', 42],
  ])('that is %s is a 400', async (_, payload) => {
    expectErrorBody(await post(JSON.stringify(payload)), 400, 'Bad Request');
  });

  it('with prototype pollution is refused', async () => {
    const response = await post('{"__proto__": {"admin": true}, "email": "a@b.ee", "name": "x"}');
    expectErrorBody(response, 400, 'Bad Request');
  });

  it('that is not JSON is a 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await post('email=a@b.ee', { 'content-type': type });
      expectErrorBody(response, 415, 'Unsupported Media Type');
    }
  });

  it('over 1 MiB is a 413', async () => {
    const response = await post({ email: 'a@b.ee', name: 'x', padding: 'x'.repeat(1024 * 1024) });
    expectErrorBody(response, 413, 'Payload Too Large');
  });

  it('does not reach the handler when rejected', async () => {
    const before = handled;
    await post('{bad');
    await post({ email: 'a@b.ee' });
    expect(handled).toBe(before);
  });
});

describe('routes', () => {
  it('unknown ones are a 404 in the error shape', async () => {
    const body = expectErrorBody(await t.app.inject({ method: 'GET', url: '/no/such/thing?x=1' }), 404, 'Not Found');
    expect(body.message).toContain('/no/such/thing');
    expect(body.message).not.toContain('x=1');
  });

  it('a known path with the wrong method is a 404 in the error shape', async () => {
    expectErrorBody(await t.app.inject({ method: 'DELETE', url: '/country' }), 404, 'Not Found');
  });
});

describe('an unexpected failure', () => {
  it('is a 500 whose body carries no internals', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/crash' });
    const body = expectErrorBody(response, 500, 'Internal Server Error');
    expect(response.body).not.toContain('secret');
    expect(response.body).not.toContain('at ');
    expect(body.message).toBe('Serveris tekkis sisemine viga.');
  });
});
