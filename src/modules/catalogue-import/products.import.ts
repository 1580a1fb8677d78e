import type { Kysely } from 'kysely';
import type { ImportDeps, ImportKind, ImportOptions, ImportProgress, RunImport } from '../../infra/import/index.js';
import {
  ImportRefusedError,
  importNdjson,
  memberStrings,
  readNdjson,
  repeatedMember,
  stoppedBeforeFirstLine,
  type LineImporter,
} from '../../infra/import/index.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import type { Logger } from '../../infra/logger.js';
import { LineError } from './fields.js';
import { parseProductLine, PHYSICAL_EDITION, type ProductRecord } from './products.format.js';
import { syncRelated, writeProduct, type ResolvedProduct } from './products.write.js';
import { References } from './references.js';
import { chunks, inLineTransaction, type Outcome, type Trx } from './write.js';
import {
  activeProductsPage,
  deactivateProducts,
  linkedEditions,
  physicalBookType,
  setPhysicalBook,
  supplierOfCode,
  touchProduct,
  typeToChange,
} from './products.repository.js';
import { productChanged, productsDeactivated } from './product-events.js';

// The product feed is full: a product the file does not list is no longer sold and is
// deactivated after the last line. A first pass collects the file's codes (the only thing kept in
// memory for the whole file, each with its last line and whether that line makes it a BOOK), so that a truncated feed is
// refused before anything is written and links to products later in the file (physicalBook,
// related) are told apart from unknown codes. A physicalBook whose product a later line of the file
// makes a BOOK, or no longer one, is checked and made once the file was read, with the type that
// line gave it, not the type it had before.
// A line that makes a BOOK of the catalogue something else is refused while e-books (or audiobooks)
// stay linked to it: linked products the file does not list, or whose lines were refused. Their
// links are theirs, not the BOOK line's to undo, and a supplier's feed must not write the back
// office's e-books; so the operator is told on the BOOK's line, and the shop never shows an
// e-book whose physical edition is not a book. A linked product whose own line is accepted is
// relinked by it (another physicalBook, none, or this one, which is then checked with the new type
// and not made), so its BOOK is retyped; when such a line comes later in the file, the BOOK's line
// waits for the end of the file (kept in memory: rare, and only those lines).
// Both rules hold between imports running at once (the back office's and a supplier's, each in
// its own process or request): a line reads what its check rests on in its own transaction, the
// BOOK's row locked on PostgreSQL (products.repository.ts), so a link and a retype of the same
// BOOK are one after the other and the second sees the first. Whether a line retypes a stored
// product is told by the row its write reads: the other lines pay nothing for the check.
// A feed answers for a scope: the back office's feed for the products no supplier keeps, a
// supplier's feed (modules/integrations) for that supplier's own; each deactivates only in its scope.

/** Whose products a feed lists: a supplier's (its id), or the back office's (null). */
export interface ProductFeedScope {
  supplierId: number | null;
}

/** What the first pass learns: every code the file names, and which of them it deactivates. */
interface Feed {
  /** The last line naming each code, negative when that line does not make it a BOOK (PHYSICAL_EDITION). */
  codes: Map<string, number>;
  inactive: Set<string>;
}

/** A line that makes a BOOK something else while products linked to it have later lines: applied after the file. */
interface DeferredLine {
  record: ProductRecord;
  line: number;
}

/** Thrown in a line's transaction to undo it: the line waits for the end of the file (a DeferredLine). */
class WaitForFile extends Error {}

/** A link to a product later in the file, made once the whole file was read. */
interface PendingLinks {
  line: number;
  productId: number;
  physicalBook: string | undefined;
  related: string[] | undefined;
}

export const productsKind: ImportKind = {
  usage: `import products <file.ndjson> [--force]
                                      the full product feed: active products it does not list are
                                      deactivated; refused when that is more than half of them`,
  create: (deps, options) => productFeed(deps, options, { supplierId: null }),
};

/** A full product feed of the scope: unlisted active products of the scope are deactivated. */
export function productFeed({ db, clock, log }: ImportDeps, { force }: ImportOptions, scope: ProductFeedScope): RunImport {
  return async (file, report, progress) => {
    const feed = await scanFeed(file, progress);
    try {
      await refuseMassDeactivation(db, feed, force, scope);
    } catch (error) {
      if (error instanceof ImportRefusedError) throw error;
      // Nothing is written yet: the import stops, and says so by an id rather than with the database's text.
      return stoppedBeforeFirstLine(MASS_DEACTIVATION_CHECK, error, report, log);
    }
    return importNdjson(file, productLines(db, log, clock, feed, scope), report, log, progress);
  };
}

const MASS_DEACTIVATION_CHECK = 'the check of how many active products the file would deactivate';

async function scanFeed(file: string, progress: ImportProgress | undefined): Promise<Feed> {
  const feed: Feed = { codes: new Map(), inactive: new Set() };
  // A line that is bad in other ways still names its product: it is skipped, not deactivated.
  await readNdjson(
    file,
    'scan',
    () => {},
    progress,
    (value, lineNumber, _bad, line) => {
      // A line giving a member twice is bad, and so is one that is not JSON (a raw tab in a text, a
      // line cut short): every code it gives is left alone, not only the last, nor deactivated.
      if (value === undefined || repeatedMember(line) !== undefined) {
        for (const named of memberStrings(line, 'code')) feed.codes.set(named, -lineNumber);
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const { code, active, type } = value as { code?: unknown; active?: unknown; type?: unknown };
      if (typeof code !== 'string') return;
      feed.codes.set(code, type === PHYSICAL_EDITION ? lineNumber : -lineNumber);
      if (active === false) feed.inactive.add(code);
    },
    { lenient: true },
  );
  return feed;
}

/** Pages through the active products' ids and codes, keyset by id: constant memory. */
async function* activeProducts(db: Kysely<Database>, scope: ProductFeedScope): AsyncGenerator<Array<{ id: number; code: string }>> {
  let after = 0;
  for (;;) {
    const page = await activeProductsPage(db, after, scope.supplierId);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.id;
  }
}

/**
 * "More than half" is strict and counts against what is active now: on an empty catalogue
 * nothing is deactivated (0 of 0), so a first import always runs.
 */
async function refuseMassDeactivation(db: Kysely<Database>, feed: Feed, force: boolean, scope: ProductFeedScope): Promise<void> {
  if (force) return;
  let active = 0;
  let dropped = 0;
  for await (const page of activeProducts(db, scope)) {
    active += page.length;
    for (const { code } of page) if (!feed.codes.has(code) || feed.inactive.has(code)) dropped += 1;
  }
  if (dropped * 2 > active) {
    throw new ImportRefusedError('import.massDeactivation', { dropped, active });
  }
}

function productLines(db: Kysely<Database>, log: Logger, clock: Clock, feed: Feed, scope: ProductFeedScope): LineImporter<ProductRecord> {
  const refs = new References(db);
  const pending: PendingLinks[] = [];
  /** Products whose accepted line left their physicalBook to be made after the file (in `pending`). */
  const relinked = new Set<number>();
  /** The retyping lines that wait for the end of the file, in file order, and their codes. */
  const deferred: DeferredLine[] = [];
  const deferredCodes = new Set<string>();

  /** Ids of product codes; a code that is later in the file is `pending`, any other unknown one is an error. */
  async function products(codes: string[], field: string): Promise<Array<number | 'pending'>> {
    const found = await refs.find('product', codes);
    return codes.map((code) => {
      const id = found.get(code);
      if (id !== undefined) return id;
      if (feed.codes.has(code)) return 'pending';
      throw new LineError(`/${field}: unknown product "${code}" (neither in the catalogue nor in this file)`);
    });
  }

  async function resolve(record: ProductRecord): Promise<ResolvedProduct> {
    const personIds = await refs.require(
      'person',
      record.persons.map((person) => person.code),
      'persons',
    );
    const categories = await refs.categories(record.categories, 'categories');
    let [physicalBook] = record.physicalBook ? await products([record.physicalBook], 'physicalBook') : [null];
    // Its retyping line waits for the end of the file: so does the check of this link.
    if (typeof physicalBook === 'number' && deferredCodes.has(record.physicalBook!)) physicalBook = 'pending';
    const related = await products(record.related, 'related');
    return {
      record,
      publisherId: await refs.optional('publisher', record.publisher, 'publisher'),
      seriesId: await refs.optional('series', record.series, 'series'),
      // A catalogue product's id is checked in the line's transaction (physicalBookNow).
      physicalBookId: physicalBook === 'pending' ? undefined : physicalBook,
      relatedIds: related.includes('pending') ? undefined : (related as number[]),
      persons: record.persons.map((person, position) => ({ person_id: personIds[position]!, role: person.role, position })),
      categoryIds: categories.map((category) => category.id),
    };
  }

  /**
   * The line's physicalBook `id`, a product of the catalogue, checked in the line's transaction:
   * undefined when a later line of the file makes it a BOOK, or no longer one (linked once that
   * line was applied, with the type it gave); refused when it is not a BOOK.
   */
  async function physicalBookNow(trx: Trx, record: ProductRecord, line: number, id: number): Promise<number | undefined> {
    const type = await physicalBookType(trx, id);
    const later = feed.codes.get(record.physicalBook!) ?? 0;
    if (Math.abs(later) > line && (type === PHYSICAL_EDITION) !== later > 0) return undefined;
    if (type !== PHYSICAL_EDITION) throw new LineError(`/physicalBook: ${notPhysicalEdition(record.physicalBook!, type)}`);
    return id;
  }

  /**
   * Run in the line's transaction when the line changes the type of the stored product `id`, before
   * it is written (`final`: the end of the file). A line that makes a BOOK something else is
   * refused while a product stays linked to it that no accepted line of the file relinks; it waits
   * for the end of the file (WaitForFile) while such a product's line is still to come.
   */
  async function retypeCheck(trx: Trx, record: ProductRecord, id: number, line: number, final: boolean): Promise<void> {
    if (record.columns.type === PHYSICAL_EDITION) return;
    if ((await typeToChange(trx, id)) !== PHYSICAL_EDITION) return;
    const linked = (await linkedEditions(trx, id)).filter((edition) => !relinked.has(edition.id));
    const left = final ? linked : linked.filter((edition) => Math.abs(feed.codes.get(edition.code) ?? 0) <= line);
    if (left.length > 0) throw new LineError(`/type: ${stillLinked(record.code, left)}`);
    if (linked.length > 0) throw new WaitForFile();
  }

  /** Applies the line (`final`: at the end of the file), or leaves it to wait for the end: undefined. */
  async function applyLine(record: ProductRecord, line: number, final: boolean): Promise<Outcome | undefined> {
    if (scope.supplierId !== null) await admitSupplierProduct(db, record.code, scope.supplierId);
    await refs.requireBinding(record.columns.binding_code);
    const resolved = await resolve(record);
    if (final || !deferredCodes.has(record.code)) {
      try {
        return await writeLine(resolved, line, final);
      } catch (error) {
        if (!(error instanceof WaitForFile)) throw error;
      }
    } // else after its earlier waiting line, in order
    deferred.push({ record, line });
    deferredCodes.add(record.code);
    return undefined;
  }

  /** The line's transaction: its checks and its write, then its links to later lines noted. */
  async function writeLine(resolved: ResolvedProduct, line: number, final: boolean): Promise<Outcome> {
    const { record } = resolved;
    const { id, outcome, product } = await inLineTransaction(db, log, async (trx) => {
      const product =
        typeof resolved.physicalBookId === 'number'
          ? { ...resolved, physicalBookId: await physicalBookNow(trx, record, line, resolved.physicalBookId) }
          : resolved;
      const now = clock.now();
      const owner = scope.supplierId === null ? {} : { supplier_id: scope.supplierId };
      const written = await writeProduct(trx, product, now, owner, (id) => retypeCheck(trx, record, id, line, final));
      if (written.outcome !== 'unchanged') await productChanged(trx, written.id, 'feed', now);
      return { ...written, product };
    });
    refs.remember('product', record.code, id);
    if (product.physicalBookId === undefined || product.relatedIds === undefined) {
      pending.push({
        line,
        productId: id,
        physicalBook: product.physicalBookId === undefined ? record.physicalBook! : undefined,
        related: product.relatedIds === undefined ? record.related : undefined,
      });
      if (product.physicalBookId === undefined) relinked.add(id);
      // The link will change: a product that was otherwise the same is still updated.
      return outcome === 'unchanged' ? 'updated' : outcome;
    }
    return outcome;
  }

  return {
    parse: parseProductLine,
    apply: (record, line) => applyLine(record, line, false),
    async finish({ fail, failWith, failStep }) {
      const outcomes: Record<string, number> = {};
      // The waiting retyping lines first: the links left to make are checked with the types they give.
      for (const { record, line } of deferred) {
        try {
          const outcome = (await applyLine(record, line, true))!;
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        } catch (error) {
          failWith(line, error);
        }
      }
      // Each line's links in a transaction of their own: one that fails leaves the product written
      // without them (a second import of the file makes them), and the other lines' are made.
      for (const links of pending) {
        try {
          await link(db, log, refs, links, fail, clock.now());
        } catch (error) {
          failWith(links.line, error, LINKS_NOT_MADE);
        }
      }
      return { ...outcomes, deactivated: await deactivateUnlisted(db, log, feed, clock, scope, failStep) };
    },
  };
}

const LINKS_NOT_MADE = 'was saved, but its links to products later in the file could not be made';

/**
 * Makes the links of a line to products later in the file. A target whose own line was bad does
 * not exist: the line is reported, and its other links are made.
 */
async function link(
  db: Kysely<Database>,
  log: Logger,
  refs: References,
  links: PendingLinks,
  fail: (line: number, message: string) => void,
  now: number,
): Promise<void> {
  const codes = [...(links.physicalBook ? [links.physicalBook] : []), ...(links.related ?? [])];
  const found = await refs.find('product', codes);
  const missing = codes.filter((code) => !found.has(code));
  if (missing.length > 0) {
    fail(
      links.line,
      `product ${missing.map((code) => `"${code}"`).join(', ')} was not imported (its line was bad), so the product is not linked to it`,
    );
  }
  // The physicalBook is checked in the transaction that links it, as a line's is (physicalBookType).
  const refused = await inLineTransaction(db, log, async (trx) => {
    let physicalBookId = links.physicalBook ? (found.get(links.physicalBook) ?? null) : null;
    let refused: string | undefined;
    if (links.physicalBook && physicalBookId !== null) {
      const type = await physicalBookType(trx, physicalBookId);
      if (type !== PHYSICAL_EDITION) {
        refused = `/physicalBook: ${notPhysicalEdition(links.physicalBook, type)}, so the product is not linked to it`;
        physicalBookId = null;
      }
    }
    let changed = false;
    if (links.physicalBook) {
      changed = await setPhysicalBook(trx, links.productId, physicalBookId);
    }
    if (links.related) {
      const relatedIds = links.related.flatMap((code) => found.get(code) ?? []);
      changed = (await syncRelated(trx, links.productId, relatedIds, false)) || changed;
    }
    if (changed) await touchProduct(trx, links.productId, now);
    return refused;
  });
  if (refused !== undefined) fail(links.line, refused);
}

/**
 * Why the product `code` of type `type` cannot be a physical edition: an e-book or audiobook names a
 * printed book (PHYSICAL_EDITION), not another e-book nor a product of another kind.
 */
function notPhysicalEdition(code: string, type: string | undefined): string {
  return `product "${code}" is of type ${type ?? 'unknown'}, not a physical book (${PHYSICAL_EDITION})`;
}

/** Why the BOOK `code` keeps its type: the products still linked to it (the first ten named). */
function stillLinked(code: string, linked: ReadonlyArray<{ code: string }>): string {
  const shown = linked.slice(0, 10).map((edition) => `"${edition.code}"`);
  const more = linked.length > shown.length ? ` and ${linked.length - shown.length} more` : '';
  return (
    `product "${code}" is the physical book (${PHYSICAL_EDITION}) of ${shown.join(', ')}${more}, and no accepted line of this file ` +
    `changes their physicalBook; link them to another book (or to none) first, or keep its type ${PHYSICAL_EDITION}`
  );
}

/**
 * Deactivates the scope's active products the file does not list, 500 a transaction; the number it
 * did. An unexpected error stops it there (`failStep`): what is left waits for the next import of
 * the file, rather than meet the same refusal 500 at a time, each logged. Each batch is stamped when
 * its transaction runs, not once for all: a batch that began long after a shared stamp (the catalogue
 * read, the batches before it) would commit rows into a data-export window already answered.
 */
async function deactivateUnlisted(
  db: Kysely<Database>,
  log: Logger,
  feed: Feed,
  clock: Clock,
  scope: ProductFeedScope,
  failStep: (step: string, error: unknown) => void,
): Promise<number> {
  let deactivated = 0;
  try {
    const unlisted: number[] = [];
    for await (const page of activeProducts(db, scope)) for (const { id, code } of page) if (!feed.codes.has(code)) unlisted.push(id);
    for (const part of chunks(unlisted)) {
      deactivated += await inLineTransaction(db, log, async (trx) => {
        const now = clock.now();
        const codes = await deactivateProducts(trx, part, now);
        await productsDeactivated(trx, codes, now);
        return codes.length;
      });
    }
  } catch (error) {
    failStep('the deactivation of the active products the file does not list', error);
  }
  return deactivated;
}

/** A supplier's feed writes its own products and new ones, never the back office's or another supplier's. */
async function admitSupplierProduct(db: Kysely<Database>, code: string, supplierId: number): Promise<void> {
  const owner = await supplierOfCode(db, code);
  if (owner !== undefined && owner !== supplierId) throw new LineError(`/code: product "${code}" is not one of this supplier's products`);
}
