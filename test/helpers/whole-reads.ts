import { CompiledQuery, sql, type Kysely } from 'kysely';
import { isPostgres } from '../../src/db/row-lock.js';
import type { Database } from '../../src/db/schema.js';

// The steps of a statement's plan that read a whole table, on either engine, for
// test/http/plan-sweep.test.ts. The statement is explained with its own parameters; on
// PostgreSQL with sequential scans off (as query-plans.ts does), as on a large table, so that
// only a missing index scans, and with hash and merge joins off, so that a join probes an index
// per row where it can (on small tables PostgreSQL would rather read one side whole and hash it).
//
// Two kinds of whole read:
// - `scan`: every row of the table (SQLite `SCAN t`, PostgreSQL `Seq Scan on t`), or a temporary
//   index SQLite builds from every row of it (`AUTOMATIC ... INDEX`);
// - `walk`: every entry of one of its indexes, in the index's order, with no bound on the range
//   (SQLite `SCAN t USING [COVERING] INDEX i`, PostgreSQL an Index [Only] Scan or a Bitmap Index
//   Scan without an Index Cond). It reads the whole table too, unless something stops it early:
//   a LIMIT that the walk's order answers (a page of the newest, say). Whether one does is the
//   caller's to judge.

export interface WholeRead {
  table: string;
  kind: 'scan' | 'walk';
  /** The plan's step, as the engine wrote it. */
  step: string;
}

export interface ExplainedStatement {
  /** The plan, one line a step. */
  plan: string;
  reads: WholeRead[];
  /** Names a SQLite step scans that are neither a table (or an alias of one) nor a CTE or subquery of the statement. */
  unresolved: string[];
}

/** Whether the statement is one an engine can explain (not a transaction's begin, savepoint, lock...). */
export function explainable(statement: CompiledQuery): boolean {
  return /^\s*\(?\s*(select|with|insert|update|delete)\b/i.test(statement.sql);
}

/** The tables of the database (not views, not SQLite's own). */
export async function tablesOf(db: Kysely<Database>): Promise<Set<string>> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
    return new Set(rows.map((row) => row.name));
  }
  const { rows } = await sql<{ name: string }>`select name from sqlite_schema where type = 'table' and name not like 'sqlite_%'`.execute(
    db,
  );
  return new Set(rows.map((row) => row.name));
}

export async function explainStatement(db: Kysely<Database>, statement: CompiledQuery, tables: Set<string>): Promise<ExplainedStatement> {
  return isPostgres(db) ? explainPostgres(db, statement) : explainSqlite(db, statement, tables);
}

async function explainSqlite(db: Kysely<Database>, statement: CompiledQuery, tables: Set<string>): Promise<ExplainedStatement> {
  const { rows } = await db.executeQuery<{ detail: string }>({ ...statement, sql: `explain query plan ${statement.sql}` });
  const steps = rows.map((row) => row.detail);
  const names = namesOf(statement.sql, tables);
  const reads: WholeRead[] = [];
  const unresolved: string[] = [];
  for (const step of steps) {
    const match = /^(SCAN|SEARCH) (\S+)(?: USING (.*))?$/.exec(step);
    if (!match) continue;
    const [, verb, name, using = ''] = match;
    if (name === 'CONSTANT' || name!.startsWith('(')) continue;
    // A table-valued function or a virtual table (json_each, a full-text index) is no table's rows.
    if (/VIRTUAL TABLE/.test(step)) continue;
    const named = names.get(name!);
    if (named === undefined) {
      unresolved.push(`${name} (${step})`);
      continue;
    }
    for (const table of named) {
      if (verb === 'SCAN' && using === '') reads.push({ table, kind: 'scan', step });
      else if (/AUTOMATIC/.test(using)) reads.push({ table, kind: 'scan', step });
      else if (verb === 'SCAN' && /INDEX|PRIMARY KEY/.test(using)) reads.push({ table, kind: 'walk', step });
    }
  }
  return { plan: steps.join('\n'), reads, unresolved };
}

const NOT_AN_ALIAS = new Set(
  'where on using inner left right full cross join natural group order limit offset having union except intersect window set values returning as select from default natural lateral'.split(
    ' ',
  ),
);

/**
 * What each name a SQLite plan may show stands for in the statement: a table by its name, an alias
 * by its tables (an alias used twice for different tables stands for both), and a CTE's or a
 * subquery's name for nothing (its rows are the statement's own, read through the steps beside it).
 */
function namesOf(text: string, tables: Set<string>): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  const add = (name: string, table?: string) => {
    const set = names.get(name) ?? new Set<string>();
    if (table !== undefined) set.add(table);
    names.set(name, set);
  };
  for (const table of tables) add(table, table);
  const identifier = String.raw`"?([A-Za-z_][\w]*)"?`;
  // `from "t" as "a"`, `join t a`, `update "t" as "a"`, `into "t" as "a"`, and `, "t" as "a"` in a list of tables.
  const aliased = new RegExp(String.raw`(?:\bfrom|\bjoin|\bupdate|\binto|,)\s+${identifier}(?:\s+as)?\s+${identifier}`, 'gi');
  for (const match of text.matchAll(aliased)) {
    const [, table, alias] = match;
    if (!tables.has(table!) || NOT_AN_ALIAS.has(alias!.toLowerCase())) continue;
    add(alias!, table);
  }
  // CTEs (`with "x" as (`, `, "x" as (`, `"x"("a", "b") as (`) and subqueries (`) as "x"`, `) "x"`).
  for (const match of text.matchAll(new RegExp(String.raw`${identifier}\s*(?:\([^()]*\))?\s+as\s+(?:(?:not\s+)?materialized\s+)?\(`, 'gi')))
    add(match[1]!);
  for (const match of text.matchAll(new RegExp(String.raw`\)\s+(?:as\s+)?${identifier}`, 'gi'))) {
    if (!NOT_AN_ALIAS.has(match[1]!.toLowerCase())) add(match[1]!);
  }
  return names;
}

interface PostgresNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PostgresNode[];
}

/** The Bitmap Index Scans under a Bitmap Heap Scan (through BitmapAnd and BitmapOr). */
function bitmapIndexScans(node: PostgresNode): PostgresNode[] {
  return (node.Plans ?? []).flatMap((child) =>
    child['Node Type'] === 'Bitmap Index Scan' ? [child] : /^Bitmap(And|Or)$/.test(child['Node Type']) ? bitmapIndexScans(child) : [],
  );
}

async function explainPostgres(db: Kysely<Database>, statement: CompiledQuery): Promise<ExplainedStatement> {
  return db.connection().execute(async (connection) => {
    for (const setting of ['seqscan', 'hashjoin', 'mergejoin'])
      await connection.executeQuery(CompiledQuery.raw(`set enable_${setting} = off`));
    try {
      const text = await connection.executeQuery<{ 'QUERY PLAN': string }>({ ...statement, sql: `explain ${statement.sql}` });
      const json = await connection.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PostgresNode }> | string }>({
        ...statement,
        sql: `explain (format json) ${statement.sql}`,
      });
      const raw = json.rows[0]!['QUERY PLAN'];
      const root = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PostgresNode }>;
      const reads: WholeRead[] = [];
      const visit = (node: PostgresNode) => {
        const table = node['Relation Name'];
        const on = table === undefined ? '' : ` on ${table}${node.Alias && node.Alias !== table ? ` ${node.Alias}` : ''}`;
        const filter = node.Filter ? ` (Filter: ${node.Filter})` : '';
        if (table !== undefined && /Seq Scan|Sample Scan|Tid Range Scan/.test(node['Node Type'])) {
          reads.push({ table, kind: 'scan', step: `${node['Node Type']}${on}${filter}` });
        } else if (table !== undefined && /^Index (Only )?Scan$/.test(node['Node Type']) && node['Index Cond'] === undefined) {
          reads.push({ table, kind: 'walk', step: `${node['Node Type']} using ${node['Index Name']}${on}${filter}` });
        } else if (table !== undefined && node['Node Type'] === 'Bitmap Heap Scan') {
          // A bitmap of a whole index (no Index Cond) is every row's entry, read in the table's order.
          const whole = bitmapIndexScans(node).find((scan) => scan['Index Cond'] === undefined);
          if (whole) reads.push({ table, kind: 'walk', step: `Bitmap Index Scan on ${whole['Index Name']}${on}${filter}` });
        }
        for (const child of node.Plans ?? []) visit(child);
      };
      visit(root[0]!.Plan);
      return { plan: text.rows.map((row) => row['QUERY PLAN']).join('\n'), reads, unresolved: [] };
    } finally {
      for (const setting of ['seqscan', 'hashjoin', 'mergejoin'])
        await connection.executeQuery(CompiledQuery.raw(`reset enable_${setting}`));
    }
  });
}
