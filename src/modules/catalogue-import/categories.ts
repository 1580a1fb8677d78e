import { Type, type Static } from '@sinclair/typebox';
import { Code, LineError, Position, Store, Translated, TranslatedText, lineParser, nameRows } from './fields.js';
import { categoryListingIsStale, rebuildCategoryListing } from '../catalogue/index.js';
import { lineKind } from './kind.js';
import { syncNames } from './names.js';
import { chunks, inLineTransaction, upsertByCode, type Outcome, type Trx } from './write.js';
import { findCategoryForParent, findCategoryId, findChildCategory, findParentId, relevelChildren } from './categories.repository.js';

// Categories: a tree per store. `level` is derived from the parent (root = 1), so the file never
// says it; a parent must be imported first (an earlier line or an earlier import).

const CategoryLine = Type.Object(
  {
    code: Code(),
    store: Store,
    parent: Type.Optional(Type.Union([Code('parent category code'), Type.Null()])),
    position: Type.Optional(Position),
    active: Type.Optional(Type.Boolean()),
    names: Translated(200),
    descriptions: Type.Optional(TranslatedText(20_000)),
  },
  { additionalProperties: false },
);
type CategoryLine = Static<typeof CategoryLine>;

/** What the step after the last line does, as its failure names it. */
const LISTING_REBUILD_STEP = "the rebuild of the category lists' kept order and product counts from the changed tree";

/** Deeper than any real catalogue; a walk that goes on longer has found a broken tree. */
const MAX_DEPTH = 100;

function parse(line: CategoryLine): CategoryLine {
  if (line.parent === line.code) throw new LineError(`/parent: a category cannot be its own parent`);
  return line;
}

export const categoriesKind = lineKind(
  'import categories <file.ndjson>     category trees of the stores (parents first)',
  ({ db, clock, log }) => ({
    parse: lineParser(CategoryLine, parse),
    apply: (line: CategoryLine) =>
      inLineTransaction(db, log, async (trx): Promise<Outcome> => {
        const now = clock.now();
        const stored = await findCategoryId(trx, line.code);
        const parent = line.parent ? await parentOf(trx, line, stored?.id) : undefined;
        const wanted = {
          store_code: line.store,
          parent_id: parent?.id ?? null,
          level: parent ? parent.level + 1 : 1,
          position: line.position ?? 0,
          is_active: line.active ?? true,
        };
        const names = nameRows(line.names, line.descriptions);
        const written = await upsertByCode(trx, 'category', line.code, wanted, now, async (id, isNew, changed) => {
          if (changed.store_code !== undefined) {
            const child = await findChildCategory(trx, id);
            if (child)
              throw new LineError(`/store: "${line.code}" has subcategories (e.g. "${child.code}"); it cannot move to another store`);
          }
          return syncNames.category(trx, id, names, isNew);
        });
        if (written.changed.level !== undefined) await relevel(trx, written.id, wanted.level, now);
        return written.outcome;
      }),
    // A changed tree leaves the category lists' kept order stale (the lists query meanwhile): rebuilt here, once per import.
    // Should it fail, the lists stay stale (still right, only slower) until a list or the next import rebuilds them.
    async finish({ failStep }) {
      try {
        if (await categoryListingIsStale(db)) await rebuildCategoryListing(db);
      } catch (error) {
        failStep(LISTING_REBUILD_STEP, error);
      }
      return {};
    },
  }),
);

/** The parent: known, in the same store, and not below the category itself (a cycle). */
async function parentOf(trx: Trx, line: CategoryLine, id: number | undefined): Promise<{ id: number; level: number }> {
  const parent = await findCategoryForParent(trx, line.parent!);
  if (!parent)
    throw new LineError(
      `/parent: unknown category "${line.parent}" (a parent must come first, on an earlier line or in an earlier import)`,
    );
  if (parent.store_code !== line.store)
    throw new LineError(`/parent: "${line.parent}" is a category of ${parent.store_code}, not of ${line.store}`);
  if (id !== undefined) {
    let above: number | null = parent.parent_id;
    for (let depth = 0; above !== null; depth += 1) {
      if (above === id || depth > MAX_DEPTH)
        throw new LineError(`/parent: "${line.parent}" is below "${line.code}" in the tree; that would make a cycle`);
      const next = await findParentId(trx, above);
      above = next?.parent_id ?? null;
    }
    if (parent.id === id) throw new LineError(`/parent: a category cannot be its own parent`);
  }
  return { id: parent.id, level: parent.level };
}

/** A category that moved in the tree takes its subtree along: each level below is one deeper. */
async function relevel(trx: Trx, id: number, level: number, now: number): Promise<void> {
  let parents = [id];
  for (let depth = level + 1; parents.length > 0 && depth <= MAX_DEPTH; depth += 1) {
    const children: number[] = [];
    for (const part of chunks(parents)) {
      children.push(...(await relevelChildren(trx, part, depth, now)));
    }
    parents = children;
  }
}
