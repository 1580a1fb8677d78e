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
