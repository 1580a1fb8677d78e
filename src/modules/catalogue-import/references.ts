import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { LineError } from './fields.js';
import { findCategoriesByCode, findIdsByCode, readBindingCodes, type CodedTable } from './references.repository.js';
import { chunks } from './write.js';

// Code -> id look-ups of the things a line refers to, cached for the run of one import: a feed
// names the same publishers and persons over and over. Only hits are cached (a miss may be created
// by a later line), and look-ups run outside the line's transaction, before it starts.

type Table = CodedTable;

export interface CategoryRef {
  id: number;
  store: string;
  level: number;
}

export class References {
  private readonly ids = new Map<Table, Map<string, number>>();
  private readonly categoryRefs = new Map<string, CategoryRef>();
  private bindings: Set<string> | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  /** The ids of the codes that exist; codes not in the result are unknown. */
  async find(table: Table, codes: readonly string[]): Promise<Map<string, number>> {
    let cache = this.ids.get(table);
    if (!cache) this.ids.set(table, (cache = new Map()));
    const found = new Map<string, number>();
    const missing: string[] = [];
    for (const code of codes) {
      const id = cache.get(code);
      if (id === undefined) missing.push(code);
      else found.set(code, id);
    }
    for (const part of chunks([...new Set(missing)])) {
      const rows = await findIdsByCode(this.db, table, part);
      for (const row of rows) {
        cache.set(row.code, row.id);
        found.set(row.code, row.id);
      }
    }
    return found;
  }

  /** The ids of all the codes, in their order; an unknown one makes the line bad. */
  async require(table: Table, codes: readonly string[], field: string): Promise<number[]> {
    if (codes.length === 0) return [];
    const found = await this.find(table, codes);
    return codes.map((code) => {
      const id = found.get(code);
      if (id === undefined) throw new LineError(`/${field}: unknown ${table.replace('_', ' ')} "${code}"`);
      return id;
    });
  }

  async requireOne(table: Table, code: string, field: string): Promise<number> {
    return (await this.require(table, [code], field))[0]!;
  }

  async optional(table: Table, code: string | null | undefined, field: string): Promise<number | null> {
    return code === null || code === undefined ? null : this.requireOne(table, code, field);
  }

  /** Remembers a row a line just created, so later lines need no look-up. */
  remember(table: Table, code: string, id: number): void {
    let cache = this.ids.get(table);
    if (!cache) this.ids.set(table, (cache = new Map()));
    cache.set(code, id);
  }

  /** Categories with their store and level (a product's categories, a category's parent). */
  async categories(codes: readonly string[], field: string): Promise<CategoryRef[]> {
    const missing = [...new Set(codes.filter((code) => !this.categoryRefs.has(code)))];
    for (const part of chunks(missing)) {
      const rows = await findCategoriesByCode(this.db, part);
      for (const row of rows) this.categoryRefs.set(row.code, { id: row.id, store: row.store_code, level: row.level });
    }
    return codes.map((code) => {
      const ref = this.categoryRefs.get(code);
      if (!ref) throw new LineError(`/${field}: unknown category "${code}"`);
      return ref;
    });
  }

  /** Bindings are reference data from a migration: read once. */
  async requireBinding(code: string | null | undefined): Promise<string | null> {
    if (code === null || code === undefined) return null;
    this.bindings ??= new Set(await readBindingCodes(this.db));
    if (!this.bindings.has(code)) throw new LineError(`/binding: unknown binding "${code}"; use one of ${[...this.bindings].join(', ')}`);
    return code;
  }
}
