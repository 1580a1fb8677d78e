import type { DatabaseHandle } from '../../src/db/database.js';
import { terms } from '../../src/modules/search/query-text.js';

// What the search benchmark asks for, taken from the catalogue itself (the same on both engines:
// the dataset is deterministic): words by how many products a guest of WEB finds with them,
// EANs of visible products, and prefixes as a shopper types them.

export interface SearchTargets {
  /** Words in the titles of thousands of products. */
  common: string[];
  /** Words in the titles or persons of one to ten products. */
  rare: string[];
  eans: string[];
  /** Two to five letters of common words and of persons' surnames. */
  prefixes: string[];
  /** How many products the common and the rare words find, at least and at most. */
  commonRange: [number, number];
  rareRange: [number, number];
}

const COMMON = 20;
const RARE = 500;
/** A rare word finds at most this many products. */
const RARE_MAX = 10;
const EANS = 1_000;
const PREFIX_WORDS = 40;

export async function pickSearchTargets(database: DatabaseHandle): Promise<SearchTargets> {
  const visible = database.db
    .selectFrom('product as p')
    .innerJoin('product_store as ps', (join) => join.onRef('ps.product_id', '=', 'p.id').on('ps.store_code', '=', 'WEB'))
    .where('p.is_active', '=', true)
    .where('p.hidden_web', '=', false);
  const rows = await visible.select(['p.id', 'p.name', 'p.ean']).orderBy('p.id').execute();
  const authors = await visible
    .innerJoin('product_person as pp', 'pp.product_id', 'p.id')
    .innerJoin('person as pe', 'pe.id', 'pp.person_id')
    .select(['p.id', 'pe.name'])
    .execute();
  // How many products each word finds: in their titles (common words) or titles and persons (rare words).
  const inTitles = new Map<string, number>();
  const inDocuments = new Map<string, number>();
  const count = (map: Map<string, number>, words: Iterable<string>) => {
    for (const word of words) if (word.length >= 4 && !/^\d+$/.test(word)) map.set(word, (map.get(word) ?? 0) + 1);
  };
  const personsOf = new Map<number, string[]>();
  for (const row of authors) personsOf.set(row.id, [...(personsOf.get(row.id) ?? []), row.name]);
  for (const row of rows) {
    const title = new Set(terms(row.name));
    count(inTitles, title);
    count(inDocuments, new Set([...title, ...(personsOf.get(row.id) ?? []).flatMap((name) => terms(name))]));
  }
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const common = sorted(inTitles).slice(0, COMMON);
  const rareAll = sorted(inDocuments).filter(([, found]) => found <= RARE_MAX);
  const rare = everyNth(rareAll, RARE);
  const eans = everyNth(
    rows.filter((row) => row.ean !== null).map((row) => row.ean!),
    EANS,
  ).map((ean, index) =>
    // Half of them typed with hyphens, as copied from a book's back cover.
    index % 2 === 0 ? ean : `${ean.slice(0, 3)}-${ean.slice(3, 7)}-${ean.slice(7, 12)}-${ean.slice(12)}`,
  );
  const persons = await database.db.selectFrom('person').select('name').orderBy('id').limit(2_000).execute();
  const surnames = everyNth(
    [...new Set(persons.map((row) => terms(row.name).at(-1) ?? ''))].filter((name) => name.length >= 5),
    PREFIX_WORDS / 2,
  );
  const words = [...common.slice(0, PREFIX_WORDS / 2).map(([word]) => word), ...surnames];
  const prefixes = [...new Set(words.flatMap((word) => [2, 3, 4, 5].map((length) => word.slice(0, length))))];
  return {
    common: common.map(([word]) => word),
    rare: rare.map(([word]) => word),
    eans,
    prefixes,
    commonRange: [common.at(-1)?.[1] ?? 0, common[0]?.[1] ?? 0],
    rareRange: [rare.length > 0 ? Math.min(...rare.map(([, n]) => n)) : 0, rare.length > 0 ? Math.max(...rare.map(([, n]) => n)) : 0],
  };
}

/** `count` items spread evenly over the list (all of it when shorter). */
function everyNth<T>(list: readonly T[], count: number): T[] {
  if (list.length <= count) return [...list];
  const step = list.length / count;
  return Array.from({ length: count }, (_, index) => list[Math.floor(index * step)]!);
}
