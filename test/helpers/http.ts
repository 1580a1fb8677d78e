import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';

/** Asserts the `{name, message, code, status}` error shape and returns the body. */
export function expectErrorBody(response: LightMyRequestResponse, status: number, name: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({ name, message: expect.any(String), code: expect.any(Number), status });
  expect(body.message.length).toBeGreaterThan(0);
  return body as { name: string; message: string; code: number; status: number };
}

/** Asserts a 422 body: an array of `{field, message}`; returns the fields named. */
export function expectFieldErrors(response: LightMyRequestResponse): string[] {
  expect(response.statusCode, response.body).toBe(422);
  const body = response.json() as Array<{ field: string; message: string }>;
  expect(Array.isArray(body)).toBe(true);
  expect(body.length).toBeGreaterThan(0);
  for (const entry of body) {
    expect(Object.keys(entry).sort()).toEqual(['field', 'message']);
    expect(typeof entry.message).toBe('string');
  }
  return body.map((entry) => entry.field);
}

/** A message in each of the API's languages. */
export type InEachLanguage = Record<'et' | 'en' | 'ru', string>;

/** Sends a request in et, en and ru (`x-app-language`); each must be a 422 on `field` alone, in its language. */
export async function expectFieldErrorInEachLanguage(
  send: (headers: Record<string, string>) => Promise<LightMyRequestResponse>,
  field: string,
  messages: InEachLanguage,
): Promise<void> {
  for (const language of ['et', 'en', 'ru'] as const) {
    const res = await send({ 'x-app-language': language });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json(), language).toEqual([{ field, message: messages[language] }]);
  }
}
