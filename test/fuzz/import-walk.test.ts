import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_TABLES, BUFFERED_TABLES, rowTracker } from '../helpers/row-tracker.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';
import { seeded, toJson, valueEdges } from './edge-values.js';
import { IMPORT_LINES } from './import-lines.js';

// The operator's imports walked as the credentialed walk walks the routes: a valid line of every
// kind (import-lines.ts) is imported, then sent again with one field at a time at an edge
// (edge-values.ts valueEdges: a string as long as each varchar of the schema and one more, a number
// past int4, a date PostgreSQL or Date.parse cannot read, a NUL). An import answers 200 with its
// errors by line: every answer must be that (or a 4xx in the error shape), never a 5xx, its
// messages without SQL, and a line it refused must change no rows.
//
// WALK_CASES (default 30) cases per line; WALK_CASES=all sends every one. WALK_REPORT=<file>.

let t: TestApp;
let key: string;
beforeAll(async () => ({ t, key } = await createBackOfficeApp()), 60_000);
afterAll(() => t?.close());

const importLine = (kind: string, line: unknown) =>
  t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: toJson(line),
  });

const SQL =
  /SQLITE_|syntax error at|violates \w+ constraint|out of range for type|invalid input syntax|value too long for type|index row size|for index "|NaN|Infinity|undefined/i;

/** Every path to a scalar or array of a line, nested objects included. */
function pathsOf(value: unknown, path: Array<string | number> = []): Array<{ path: Array<string | number>; value: unknown }> {
  if (value === null || typeof value !== 'object') return [{ path, value }];
  if (Array.isArray(value)) {
    const first = value[0];
    return [{ path, value }, ...(first !== null && typeof first === 'object' ? pathsOf(first, [...path, 0]) : [])];
  }
  return Object.entries(value).flatMap(([key, child]) => pathsOf(child, [...path, key]));
}

function withValue(line: Record<string, unknown>, path: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(line) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

interface Outcome {
  kind: string;
  label: string;
  status: number;
  problems: string[];
  body: string;
}

describe('the operator imports every kind with fields at the edges', () => {
  it('answers each line with its outcome or its error, never a 5xx, and a refused line changes nothing', async () => {
    for (const [kind, line] of IMPORT_LINES) {
      const response = await importLine(kind, line);
      expect(response.statusCode, `${kind}: ${response.body}`).toBe(200);
      expect(response.json(), `${kind}: ${response.body}`).toMatchObject({ errorCount: 0 });
    }
    const tracker = await rowTracker(t.database.db, t.config.databaseUrl);
    const limit = process.env.WALK_CASES === 'all' ? Infinity : Number(process.env.WALK_CASES ?? 30);
    const random = seeded(20261130);
    const outcomes: Outcome[] = [];
    for (const [kind, line] of IMPORT_LINES) {
      const all = pathsOf(line).flatMap(({ path, value }) =>
        valueEdges(value).map((edge) => ({ label: `${path.join('.')}=${edge.label}`, line: withValue(line, path, edge.value) })),
      );
      const cases = all.length <= limit ? all : [...all].sort(() => random() - 0.5).slice(0, limit);
      for (const edge of cases) {
        await tracker.changes();
        const response = await importLine(kind, edge.line);
        const changed = await tracker.changes();
        const outcome: Outcome = { kind, label: edge.label, status: response.statusCode, problems: [], body: response.body.slice(0, 300) };
        outcomes.push(outcome);
        if (response.statusCode >= 500) outcome.problems.push(`status ${response.statusCode}`);
        if (SQL.test(response.body)) outcome.problems.push('internals in the body');
        const refused = response.statusCode >= 400 || (response.json() as { errorCount?: number }).errorCount !== 0;
        const judged = Object.keys(changed).filter((table) => !(table in ATTEMPT_TABLES) && !(table in BUFFERED_TABLES));
        if (refused && judged.length > 0) outcome.problems.push(`refused but changed rows: ${judged.join(', ')}`);
      }
    }
    await tracker.close?.();
    if (process.env.WALK_REPORT) writeFileSync(process.env.WALK_REPORT, outcomes.map((o) => JSON.stringify(o)).join('\n'));
    const findings = outcomes.filter((o) => o.problems.length > 0).map((o) => `${o.kind} ${o.label} -> ${o.problems.join('; ')} ${o.body}`);
    expect(findings, `${findings.length} findings in ${outcomes.length} imports`).toEqual([]);
  }, 600_000);
});
