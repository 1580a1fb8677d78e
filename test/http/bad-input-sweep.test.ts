import { STATUS_CODES } from 'node:http';
import { writeFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../../src/demo/accounts.js';
import { seedDemo } from '../../src/demo/seed.js';
import { LANGUAGES, translate, type Language, type MessageKey } from '../../src/i18n/index.js';
import { systemClock } from '../../src/infra/clock.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { eventFeedCommand, signText } from '../../src/modules/integrations/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { ATTEMPT_TABLES, BUFFERED_TABLES, rowTracker, type RowTracker } from '../helpers/row-tracker.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { badRequests, operationsOf, PATH_VALUES, type BadRequest, type Depth, type Operation, type Schema } from './bad-input-cases.js';
import { SWEEP_ENV } from '../helpers/generous-limits.js';

// The bar: bad input of every kind gets a clear 4xx in the documented shape and changes nothing; a
// 500 is a bug. This sweep takes every operation of the API documents the app serves (the main one
// with the operators' routes, and the data-export one), sends each the bad requests
// bad-input-cases.ts derives from its documented parameters, headers and body, as a guest, as a
// customer and with the route's own credential, and checks every answer: below 500, a status the
// operation documents, a 4xx in the error shape (test/helpers/http.ts), no stack trace or SQL, and
// no rows added or removed by a request that was refused. Requests the API accepts (a valid request, a value the schema allows)
// may change rows; they are counted, not judged. All findings are reported in one assertion.
//
// BAD_INPUT_SWEEP_REPORT=<file> writes every request's outcome there (for a person reading a run).

const unjudged = (table: string) => table in ATTEMPT_TABLES || table in BUFFERED_TABLES;

/** Body fields whose schema sample is refused before the rest is read: a value that works instead. */
const BODY_VALUES: Record<string, Record<string, unknown>> = {
  'POST /auth/login': { email: 'mari@example.com', password: DEMO_PASSWORD, web_store_nav_code: 'WEB' },
  'POST /auth/switch-web-store': { webStoreNavCode: 'WEB2' },
  'POST /basket/add-discount': { code: 'TERE10' },
};

/** Signs of a stack trace or of SQL in a body. */
const LEAKS: Array<[string, RegExp]> = [
  ['stack trace', /\n\s+at [\w$.<>]+ \(|\bat (?:async )?[\w$.]+ \((?:file:|node:|\/)|node_modules\/|\.ts:\d+:\d+/],
  [
    'SQL',
    /\b(?:select\s.+\sfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b|SQLITE_|syntax error at|violates \w+ constraint|duplicate key value|relation "\w+"|no such (?:table|column)/i,
  ],
  ['error class', /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|SqliteError|DatabaseError):/],
];

interface Identity {
  name: 'guest' | 'customer' | 'operator' | 'feed client' | 'supplier' | 'export user';
  /** The credential, refreshed when a request that was accepted may have used it up. */
  headers(request: BadRequest): Record<string, string>;
  /** Called after an accepted request that may have changed the caller (logged out, deleted). */
  refresh?(): Promise<void>;
}

interface Outcome {
  operation: string;
  identity: string;
  label: string;
  status: number;
  problems: string[];
  changed: Record<string, number>;
  body: string;
  ms?: number;
}

let t: TestApp;
let operatorKey: string;
let feedToken: string;
let supplierSecret: string;
let exportAuthorization: string;

beforeAll(async () => {
  t = await createTestApp({ env: { ...SWEEP_ENV } });
  await seedDemo(t.database, { now: Date.now() });
  // The demo's catalogue is searchable only once its queued changes are folded (else search is a 503).
  await foldAllQueued(t.database, createEngine(t.database));
  const db = t.database.db;
  operatorKey = await createApiKey(db, 'bad-input-sweep', Date.now());
  const lines: string[] = [];
  await eventFeedCommand({ db, clock: systemClock }, ['add', 'bad-input-sweep'], (line) => lines.push(line));
  feedToken = lines.at(-1)!;
  supplierSecret = await addSupplier(db, 'SWEEP', 'Sweep Books', Date.now());
  exportAuthorization = (await exportUser(db)).authorization;
}, 120_000);
afterAll(() => t?.close());

/**
 * The per-request changes must add up to what counting every table says: on PostgreSQL this checks
 * the trigger log, and a write after an answer was sent (outside any request) shows here too.
 */
async function rowBooks(tracker: RowTracker) {
  let before = await tracker.counts();
  let explained: Record<string, number> = {};
  return {
    add(changes: Record<string, number>) {
      for (const [table, delta] of Object.entries(changes)) explained[table] = (explained[table] ?? 0) + delta;
    },
    /** An outcome for each table whose count moved otherwise than the requests' changes since the last check. */
    async check(operation: string): Promise<Outcome[]> {
      this.add(await tracker.changes());
      const after = await tracker.counts();
      const unexplained = Object.keys(after).filter(
        (table) => !(table in BUFFERED_TABLES) && after[table]! - before[table]! !== (explained[table] ?? 0),
      );
      const problems = unexplained.map(
        (table) =>
          `rows changed that no request accounts for: ${table} ${after[table]! - before[table]!} (requests: ${explained[table] ?? 0})`,
      );
      before = after;
      explained = {};
      return problems.length === 0
        ? []
        : [{ operation, identity: '-', label: 'row counts before and after', status: 0, problems, changed: {}, body: '' }];
    },
  };
}

/** Problems of one answer: a 5xx, a 4xx outside the error shape, internals in the body. */
function problemsOf(response: LightMyRequestResponse, documented: Set<string>, html: boolean): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  // Every answer's status is one the operation documents, the shared ones included (http/schemas.ts
  // sharedErrorStatuses), except the not-found handler's: a path that leaves the route ("raw ../")
  // reaches no operation at all.
  if (!documented.has(String(status)) && !(status === 404 && isRouteNotFound(response))) problems.push(`status ${status} not documented`);
  if (status >= 500 && !(status === 503 && documented.has('503'))) problems.push(`status ${status}`);
  if (status >= 400 && html && String(response.headers['content-type']).startsWith('text/html')) {
    // An HTML page: no JSON shape to check.
  } else if (status >= 400) {
    try {
      if (status === 422) expectFieldErrors(response);
      else expectErrorBody(response, status, STATUS_CODES[status]!);
      expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
    } catch (error) {
      problems.push(`not the error shape: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  // A stack trace has no place in any answer; SQL-like text may be a shop's own data in a 2xx.
  for (const [what, pattern] of LEAKS) {
    if ((what === 'stack trace' || status >= 400) && pattern.test(response.body)) problems.push(`${what} in the body`);
  }
  return problems;
}

/** The not-found handler's message in each language, whatever the method and path. */
const ROUTE_NOT_FOUND = LANGUAGES.map(
  (language) =>
    new RegExp(
      `^${translate(language, 'error.routeNotFound', { method: '\u0000', path: '\u0001' })
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace('\u0000', '[A-Z]+')
        .replace('\u0001', '.*')}$`,
      's',
    ),
);

/**
 * A query parameter given twice and refused for it by validation says so (http/validation.ts), in
 * whichever language; it said what the value must be, which the client had sent. (A route that
 * checks a link's token before validation refuses a repeated token as the bad link it is.)
 */
function repeatProblems(label: string, body: string): string[] {
  const twice = /^query (.+) twice$/.exec(label);
  if (!twice) return [];
  const field = twice[1]!;
  const text = (language: Language, key: MessageKey, reason = '') =>
    JSON.stringify(translate(language, key, { field, reason })).slice(1, -1);
  const language = LANGUAGES.find((candidate) => body.includes(text(candidate, 'error.badParameter')));
  if (language === undefined || body.includes(text(language, 'validation.repeated'))) return [];
  return ['a repeated parameter not said to be repeated'];
}

function isRouteNotFound(response: LightMyRequestResponse): boolean {
  try {
    const message = (response.json() as { message?: unknown }).message;
    return typeof message === 'string' && ROUTE_NOT_FOUND.some((pattern) => pattern.test(message));
  } catch {
    return false;
  }
}

const isOperatorPath = (path: string) => path.startsWith('/admin/');

/**
 * Pages a shopper's browser shows, documented as HTML: their own 4xx answers are HTML pages by
 * design; they are checked for a 4xx and for leaks, not for the JSON error shape.
 */
const HTML_PAGES: Record<string, string> = {
  'GET /payment/test/pay/{reference}': "the test gateway's simulated bank page (payments/test-gateway)",
  'POST /payment/test/pay/{reference}': "the test gateway page's buttons (payments/test-gateway)",
};

describe('bad input on every documented operation', () => {
  it('gets a 4xx in the documented shape (never a 5xx), leaks nothing and changes no rows', async () => {
    const started = Date.now();
    const operatorHeaders = { authorization: `Bearer ${operatorKey}` };
    const main = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: operatorHeaders });
    const exported = await t.app.inject({ method: 'GET', url: '/export/openapi.json', headers: { authorization: exportAuthorization } });
    expect(main.statusCode).toBe(200);
    expect(exported.statusCode).toBe(200);
    const documents = [main.json(), exported.json()] as Array<Schema & { paths: Record<string, Record<string, unknown>> }>;
    const tracker = await rowTracker(t.database.db, t.config.databaseUrl);
    const books = await rowBooks(tracker);

    const outcomes: Outcome[] = [];
    let requests = 0;
    let operationCount = 0;
    for (const document of documents) {
      for (const operation of operationsOf(document)) {
        operationCount += 1;
        const name = `${operation.method} ${operation.path}`;
        const documented = new Set(operation.responses);
        const identities = await identitiesFor(operation);
        books.add(await tracker.changes());
        for (const { identity, depth } of identities) {
          // Authorization cases replace the caller's credential: the first (primary) caller sends them.
          const cases = badRequests(operation, document, {
            depth,
            pathValues: PATH_VALUES[operation.path],
            bodyValues: BODY_VALUES[name],
          }).filter((bad) => identity === identities[0]!.identity || bad.authorization === undefined);
          for (const bad of cases) {
            const headers: Record<string, string | string[]> = { ...identity.headers(bad), ...bad.headers };
            if (bad.authorization === null) delete headers.authorization;
            else if (bad.authorization !== undefined) headers.authorization = bad.authorization;
            const outcome: Outcome = {
              operation: name,
              identity: identity.name,
              label: bad.label,
              status: 0,
              problems: [],
              changed: {},
              body: '',
            };
            outcomes.push(outcome);
            const sent = performance.now();
            let response: LightMyRequestResponse;
            try {
              // An address of its own: the limits per address (some fixed, like wrong discount codes) stay out of the way.
              const remoteAddress = `10.${(requests >> 16) & 255}.${(requests >> 8) & 255}.${requests & 255}`;
              response = await t.app.inject({ method: bad.method as 'GET', url: bad.url, headers, payload: bad.payload, remoteAddress });
            } catch (error) {
              outcome.problems.push(`inject threw: ${String(error)}`);
              continue;
            }
            requests += 1;
            outcome.ms = Math.round(performance.now() - sent);
            outcome.status = response.statusCode;
            outcome.body = response.body.slice(0, 300);
            outcome.changed = await tracker.changes();
            books.add(outcome.changed);
            outcome.problems.push(...problemsOf(response, documented, name in HTML_PAGES));
            if (response.statusCode === 400) outcome.problems.push(...repeatProblems(bad.label, response.body));
            if (response.statusCode >= 400) {
              const judged = Object.entries(outcome.changed).filter(([table]) => !unjudged(table));
              if (judged.length > 0) outcome.problems.push(`refused but changed rows: ${JSON.stringify(Object.fromEntries(judged))}`);
            } else if (bad.method !== 'GET' && identity.refresh) {
              // An accepted change may have logged the caller out or deleted them: a fresh one goes on.
              await identity.refresh();
              books.add(await tracker.changes());
            }
          }
        }
        // On SQLite the per-request changes are counts already, and this costs nothing; on
        // PostgreSQL counting every table costs some 20 ms, so the log is checked once at the end.
        if (engine === 'sqlite') outcomes.push(...(await books.check(name)));
      }
    }
    outcomes.push(...(await books.check('the whole sweep')));
    await tracker.close?.();

    if (process.env.BAD_INPUT_SWEEP_REPORT) {
      writeFileSync(process.env.BAD_INPUT_SWEEP_REPORT, outcomes.map((o) => JSON.stringify(o)).join('\n'));
    }
    const findings = summarize(outcomes.filter((o) => o.problems.length > 0));
    expect(operationCount).toBeGreaterThan(150);
    expect(requests).toBeGreaterThan(operationCount * 20);
    expect(
      findings,
      `${findings.length} findings in ${requests} requests to ${operationCount} operations (${Math.round((Date.now() - started) / 1000)} s)`,
    ).toEqual([]);
  }, 600_000);
});

/** One line per operation and kind of problem, with a few of its requests. */
function summarize(failed: Outcome[]): string[] {
  const groups = new Map<string, Outcome[]>();
  for (const outcome of failed) {
    for (const problem of outcome.problems) {
      const kind = problem.replace(/\{.*\}$/, '').replace(/: .*/, '');
      const key = `${outcome.operation}: ${kind}`;
      groups.set(key, [...(groups.get(key) ?? []), { ...outcome, problems: [problem] }]);
    }
  }
  return [...groups.entries()].map(
    ([key, list]) =>
      `${key} (${list.length}x) e.g. ${list
        .slice(0, 3)
        .map((o) => `[${o.identity}] ${o.label} -> ${o.status} ${o.problems[0]} ${o.body.slice(0, 160)}`)
        .join(' | ')}`,
  );
}

/** Who sends the operation's requests: everyone, and the route's own credential gets every case. */
async function identitiesFor(operation: Operation): Promise<Array<{ identity: Identity; depth: Depth }>> {
  const guest: Identity = { name: 'guest', headers: () => ({}) };
  const kind = /^\/(company-user|sub-company)/.test(operation.path) ? 'BUSINESS' : 'SIMPLE';
  let token = (await createCustomer(t.database.db, { kind })).token;
  const customer: Identity = {
    name: 'customer',
    headers: () => ({ authorization: `Bearer ${token}` }),
    async refresh() {
      token = (await createCustomer(t.database.db, { kind })).token;
    },
  };
  const path = operation.path;
  let own: Identity | undefined;
  if (path.startsWith('/export/')) own = { name: 'export user', headers: () => ({ authorization: exportAuthorization }) };
  else if (isOperatorPath(path)) own = { name: 'operator', headers: () => ({ authorization: `Bearer ${operatorKey}` }) };
  else if (path === '/integration/events') own = { name: 'feed client', headers: () => ({ authorization: `Bearer ${feedToken}` }) };
  else if (path.startsWith('/integration/supplier/')) {
    own = {
      name: 'supplier',
      headers: (request) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        return { 'x-timestamp': timestamp, 'x-signature': signText(supplierSecret, timestamp, request.payload ?? '') };
      },
    };
  }
  // Callers without the route's credential are refused before anything is read: one case each.
  if (own)
    return [
      { identity: own, depth: 'full' },
      { identity: guest, depth: 'minimal' },
      { identity: customer, depth: 'minimal' },
    ];
  // A guest takes the other branch of the routes that serve both (or is refused): one case each
  // still reaches every parameter, header and field.
  return [
    { identity: customer, depth: 'full' },
    { identity: guest, depth: 'minimal' },
  ];
}
