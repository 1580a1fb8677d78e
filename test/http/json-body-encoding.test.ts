import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, SHIPPING_ADDRESS, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A JSON body is UTF-8 (RFC 8259 §8.1). One whose bytes are not was decoded anyway, each bad byte
// becoming U+FFFD, and stored: an address named "Mari Mägi" sent in Latin-1 was saved as
// "Mari M\uFFFDgi" with a 201. Now it is a 400 in the error shape, and nothing is saved.

let t: TestApp;
let customer: TestCustomer;
beforeAll(async () => {
  t = await createTestApp();
  customer = await createCustomer(t.database.db);
});
afterAll(() => t?.close());

/** The address body with the name given as raw bytes. */
function addressBytes(name: Buffer): Buffer {
  const [before, after] = JSON.stringify({ ...SHIPPING_ADDRESS, name: 'NAME' }).split('NAME') as [string, string];
  return Buffer.concat([Buffer.from(before), name, Buffer.from(after)]);
}

const postAddress = (payload: Buffer, contentType = 'application/json', headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/client-account/address',
    headers: { authorization: `Bearer ${customer.token}`, store: 'WEB', 'content-type': contentType, ...headers },
    payload,
  });

const savedNames = async () =>
  (
    (
      await t.app.inject({
        method: 'GET',
        url: '/client-account/address',
        headers: { authorization: `Bearer ${customer.token}`, store: 'WEB' },
      })
    ).json() as Array<{ name: string }>
  ).map((address) => address.name);

describe('a JSON body that is not UTF-8', () => {
  it.each([
    ['a Latin-1 letter', Buffer.from('Mari M\u00e4gi', 'latin1'), 'application/json'],
    ['a Latin-1 letter under charset=iso-8859-1', Buffer.from('Mari M\u00e4gi', 'latin1'), 'application/json; charset=iso-8859-1'],
    ['an overlong encoding', Buffer.from([0x4d, 0xc0, 0xaf]), 'application/json'],
    ['a surrogate encoded as bytes', Buffer.from([0x4d, 0xed, 0xa0, 0x80]), 'application/json'],
    ['a truncated sequence', Buffer.from([0x4d, 0xc3]), 'application/json'],
  ])('is a 400 and saves nothing: %s', async (_, name, contentType) => {
    const response = await postAddress(addressBytes(name), contentType);
    expectErrorBody(response, 400, 'Bad Request');
    expect(response.json().message).toBe('Päringu sisu ei ole UTF-8 tekst; saatke JSON UTF-8 kodeeringus.');
    expect(await savedNames()).toEqual([]);
  });

  it('while the same name in UTF-8 is saved as sent', async () => {
    const response = await postAddress(addressBytes(Buffer.from('Mari M\u00e4gi', 'utf8')));
    expect(response.statusCode).toBe(201);
    expect(await savedNames()).toEqual(['Mari M\u00e4gi']);
  });

  it('leaves the other refusals of a body as they were', async () => {
    expectErrorBody(await postAddress(Buffer.from('{"name":')), 400, 'Bad Request');
    expect((await postAddress(Buffer.from('{"name":'))).json().message).toBe('Päringu sisu ei ole korrektne JSON.');
    expect((await postAddress(Buffer.from(''))).json().message).toBe('Päringu sisu on tühi; saatke JSON-objekt.');
    expectErrorBody(await postAddress(Buffer.from('{"__proto__":{"a":1}}')), 400, 'Bad Request');
  });
});

describe('a compressed body', () => {
  // Nothing here decompresses a body: a gzip one was refused as "not UTF-8", which pointed the client's developer at
  // the JSON instead of at the encoding.
  it('is a 415 naming the encoding, with Accept-Encoding: identity, and saves nothing', async () => {
    const body = gzipSync(addressBytes(Buffer.from('Gzip Mägi')));
    for (const encoding of ['gzip', 'br', 'GZIP, deflate']) {
      const response = await postAddress(body, 'application/json', { 'content-encoding': encoding, 'x-app-language': 'en' });
      expectErrorBody(response, 415, 'Unsupported Media Type');
      expect(response.json().message).toBe(`Unsupported content encoding "${encoding.toLowerCase()}"; send the body uncompressed.`);
      expect(response.headers['accept-encoding']).toBe('identity');
    }
    expect(await savedNames()).not.toContain('Gzip Mägi');
  });

  it('while identity, or the header on a request without a body, changes nothing', async () => {
    const response = await postAddress(addressBytes(Buffer.from('Identity Mägi')), 'application/json', { 'content-encoding': 'identity' });
    expect(response.statusCode, response.body).toBe(201);
    const read = await t.app.inject({
      url: '/client-account/address',
      headers: { authorization: `Bearer ${customer.token}`, store: 'WEB', 'content-encoding': 'gzip' },
    });
    expect(read.statusCode).toBe(200);
    expect(await savedNames()).toContain('Identity Mägi');
  });
});
