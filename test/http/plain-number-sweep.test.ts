import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { translate } from '../../src/i18n/index.js';
import { systemClock } from '../../src/infra/clock.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer } from '../helpers/customers.js';
import { SWEEP_ENV } from '../helpers/generous-limits.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { operationsOf, PATH_VALUES, sample, type Operation, type Parameter, type Schema } from './bad-input-cases.js';

// Path parameters, query parameters and headers are coerced to numbers by Ajv, which read any text
// Number() reads: /product/0x10 was product 16, ?per-page=1e1 ten, DELETE /wishlist/%201 removed
// product 1 (http/plain-numbers.ts). This walks every operation of both API documents (every route
// with a schema), and sends each integer or number parameter texts Number() reads but that are not
// plain decimals: each must be a 400 naming the parameter, as letters are. Letters are sent first,
// to prove the request reaches validation (the route's credential and a path that exists); a plain
// value must pass. One engine is enough: the unit is the validator, before any database.

/** Not plain decimals, each read by Number() as a number; "1.0" is a plain decimal, but no integer. */
const NOT_PLAIN = ['1e3', ' 1', '0x10', '+1', '01', 'Infinity', '0b11', '1 '];
const NOT_PLAIN_OF = { integer: [...NOT_PLAIN, '1.0'], number: [...NOT_PLAIN, '.5', '5.', '1.5e1'] };
/** A plain value of each kind that every numeric parameter's bounds take. */
const PLAIN = { integer: '1', number: '12.50' };

let t: TestApp;
let operatorKey: string;
let feedToken: string;
let exportAuthorization: string;
let customerToken: string;
let businessToken: string;

beforeAll(async () => {
  t = await createTestApp({ env: { ...SWEEP_ENV } });
  await seedDemo(t.database, { now: Date.now() });
  await foldAllQueued(t.database, createEngine(t.database));
  const db = t.database.db;
  operatorKey = await createApiKey(db, 'plain-number-sweep', Date.now());
  const lines: string[] = [];
  await eventFeedCommand({ db, clock: systemClock }, ['add', 'plain-number-sweep'], (line) => lines.push(line));
  feedToken = lines.at(-1)!;
  exportAuthorization = (await exportUser(db)).authorization;
  customerToken = (await createCustomer(db)).token;
  businessToken = (await createCustomer(db, { kind: 'BUSINESS' })).token;
}, 120_000);
afterAll(() => t?.close());

/** The credential the operation's own callers send. */
function authorizationFor(path: string): string {
  if (path.startsWith('/export/')) return exportAuthorization;
  if (path.startsWith('/admin/')) return `Bearer ${operatorKey}`;
  if (path === '/integration/events') return `Bearer ${feedToken}`;
  if (/^\/(company-user|sub-company)/.test(path)) return `Bearer ${businessToken}`;
  return `Bearer ${customerToken}`;
}

/** Whether a parameter takes numbers (an integer or number, or a list of them). */
function numericKind(parameter: Parameter): 'integer' | 'number' | undefined {
  const schema = parameter.schema ?? {};
  const one = (schema.type === 'array' ? schema.items : schema) as Schema | undefined;
  const type = one?.type;
  return type === 'integer' || type === 'number' ? type : undefined;
}

/** The operation's request with `name` set to `value` (sent as is: no encoding but of a space). */
function requestWith(operation: Operation, root: Schema, parameter: Parameter, value: string) {
  const text = value.replace(/ /g, '%20');
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === parameter.name && parameter.in === 'path'
      ? text
      : encodeURIComponent(PATH_VALUES[operation.path]?.[name] ?? String(sample(parameterSchema(operation, name), root))),
  );
  const query = operation.parameters
    .filter((p) => p.in === 'query' && (p.required === true || p === parameter))
    .map((p) => `${encodeURIComponent(p.name)}=${p === parameter ? text : encodeURIComponent(String(sample(p.schema, root)))}`);
  const headers: Record<string, string> = { store: 'WEB', 'x-app-language': 'en', authorization: authorizationFor(operation.path) };
  if (parameter.in === 'header') headers[parameter.name] = value;
  const body = operation.body?.['application/json'];
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: operation.method as 'GET',
    url: `${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    headers,
    payload: body === undefined ? undefined : JSON.stringify(sample(body, root)),
  };
}

function parameterSchema(operation: Operation, name: string): Schema | undefined {
  return operation.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
}

/** Whether the answer is validation's 400 about this parameter. */
function refusesParameter(response: LightMyRequestResponse, parameter: Parameter): boolean {
  if (response.statusCode !== 400) return false;
  const key = parameter.in === 'header' ? 'error.badHeader' : 'error.badParameter';
  const prefix = translate('en', key, { field: parameter.name, reason: '' });
  return String((response.json() as { message?: unknown }).message).startsWith(prefix);
}

describe('numeric parameters of every route', () => {
  it('take plain decimals only: 1e3, " 1", 0x10 and the like are a 400 naming the parameter', async () => {
    const headers = { authorization: `Bearer ${operatorKey}` };
    const main = await t.app.inject({ method: 'GET', url: '/openapi.json', headers });
    const exported = await t.app.inject({ method: 'GET', url: '/export/openapi.json', headers: { authorization: exportAuthorization } });
    const findings: string[] = [];
    let checked = 0;
    let requests = 0;
    const send = async (request: ReturnType<typeof requestWith>) => {
      requests += 1;
      const remoteAddress = `10.${(requests >> 16) & 255}.${(requests >> 8) & 255}.${requests & 255}`;
      return t.app.inject({ ...request, remoteAddress });
    };
    for (const document of [main.json(), exported.json()] as Array<Schema & { paths: Record<string, Record<string, unknown>> }>) {
      for (const operation of operationsOf(document)) {
        for (const parameter of operation.parameters) {
          const kind = numericKind(parameter);
          if (kind === undefined) continue;
          const name = `${operation.method} ${operation.path} ${parameter.in} ${parameter.name}`;
          const letters = await send(requestWith(operation, document, parameter, 'abc'));
          if (!refusesParameter(letters, parameter)) {
            findings.push(
              `${name}: letters not refused by validation, so nothing is judged (${letters.statusCode} ${letters.body.slice(0, 120)})`,
            );
            continue;
          }
          checked += 1;
          const plain = await send(requestWith(operation, document, parameter, PLAIN[kind]));
          if (refusesParameter(plain, parameter)) findings.push(`${name}=${PLAIN[kind]}: refused (${plain.body.slice(0, 160)})`);
          for (const value of NOT_PLAIN_OF[kind]) {
            const response = await send(requestWith(operation, document, parameter, value));
            if (!refusesParameter(response, parameter))
              findings.push(`${name}=${JSON.stringify(value)}: ${response.statusCode} ${response.body.slice(0, 120)}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(findings, `${findings.length} findings in ${requests} requests`).toEqual([]);
  }, 300_000);
});
