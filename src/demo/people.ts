import { personSortName } from '../modules/catalogue/index.js';
import type { Batch, IdBase } from './batch.js';
import { push } from './batch.js';
import { FAMOUS_AUTHORS, FIRST_NAMES, LAST_NAMES, fullName, type Origin } from './people-names.js';
import type { Random } from './random.js';
import { literaryTitle, type TextLanguage } from './titles.js';

// Persons (authors, illustrators, translators, readers), publishers and series.

export interface PersonRef {
  id: number;
  name: string;
}

export type PersonPool = 'AUTHOR' | 'ILLUSTRATOR' | 'TRANSLATOR' | 'READER';

export interface People {
  /** Persons by the pool they mostly work in and their origin; order is by popularity (first = most books). */
  pools: Record<PersonPool, Record<Origin, PersonRef[]>>;
  famous: Map<string, PersonRef>;
}

const ORIGIN_SHARE: ReadonlyArray<readonly [Origin, number]> = [
  ['ET', 45],
  ['EN', 25],
  ['RU', 20],
  ['OTHER', 10],
];
const POOL_SHARE: ReadonlyArray<readonly [PersonPool, number]> = [
  ['AUTHOR', 75],
  ['TRANSLATOR', 10],
  ['ILLUSTRATOR', 10],
  ['READER', 5],
];

const DESCRIPTION: Record<Origin, string> = {
  ET: 'Eesti kirjanik.',
  EN: 'British author, translated into many languages.',
  RU: 'Российский писатель.',
  OTHER: 'Kirjanik, keda on tõlgitud paljudesse keeltesse.',
};

export function personRows(random: Random, ids: IdBase, batch: Batch, count: number, now: number): People {
  const empty = (): Record<Origin, PersonRef[]> => ({ ET: [], EN: [], RU: [], OTHER: [] });
  const people: People = { pools: { AUTHOR: empty(), ILLUSTRATOR: empty(), TRANSLATOR: empty(), READER: empty() }, famous: new Map() };
  const used = new Set<string>();
  const add = (name: string, origin: Origin, pool: PersonPool, description: string | null) => {
    const id = ids.person++;
    const code = `P${String(id).padStart(7, '0')}`;
    const created = now - random.int(30, 1500) * 86_400_000;
    push(batch, 'person', {
      id,
      code,
      name,
      sort_name: personSortName(name),
      description,
      image_url: pool === 'AUTHOR' && random.chance(0.3) ? `https://img.example/persons/${code}.jpg` : null,
      created_at: created,
      updated_at: created,
    });
    const ref = { id, name };
    people.pools[pool][origin].push(ref);
    used.add(name);
    return ref;
  };
  for (const famous of FAMOUS_AUTHORS)
    people.famous.set(famous.code, add(famous.name, famous.origin, 'AUTHOR', famous.description ?? DESCRIPTION[famous.origin]));
  for (let i = FAMOUS_AUTHORS.length; i < count; i++) {
    const origin = random.weighted(ORIGIN_SHARE);
    const pool = random.weighted(POOL_SHARE);
    add(uniqueName(random, origin, used), origin, pool, pool === 'AUTHOR' && random.chance(0.2) ? DESCRIPTION[origin] : null);
  }
  // Every pool needs someone of every origin; popularity order is random, not famous-first.
  for (const pool of Object.keys(people.pools) as PersonPool[]) {
    for (const origin of Object.keys(people.pools[pool]) as Origin[]) {
      const list = people.pools[pool][origin];
      if (list.length === 0) list.push(add(uniqueName(random, origin, used), origin, pool, null));
      people.pools[pool][origin] = random.sample(list, list.length);
    }
  }
  return people;
}

function uniqueName(random: Random, origin: Origin, used: Set<string>): string {
  let name = '';
  for (let attempt = 0; attempt < 40; attempt++) {
    const first = random.pick(FIRST_NAMES[origin]);
    const last = random.pick(LAST_NAMES[origin]);
    name = fullName(origin, first, last);
    if (attempt >= 8) {
      // Many persons share a first and last name; a middle initial or a double surname tells them apart.
      const initial = String.fromCharCode(65 + random.int(0, 25));
      name = attempt < 24 ? fullName(origin, `${first} ${initial}.`, last) : `${name}-${random.pick(LAST_NAMES[origin])}`;
    }
    if (!used.has(name)) return name;
  }
  return name;
}

export interface PublisherRef {
  id: number;
  language: TextLanguage | 'OTHER';
}

export interface Publishers {
  books: Record<TextLanguage | 'OTHER', PublisherRef[]>;
  music: PublisherRef[];
  film: PublisherRef[];
  games: PublisherRef[];
}

const NAMED_PUBLISHERS: ReadonlyArray<readonly [string, TextLanguage | 'OTHER' | 'music' | 'film' | 'games']> = [
  ['Varrak', 'ET'],
  ['Tänapäev', 'ET'],
  ['Pegasus', 'ET'],
  ['Eesti Raamat', 'ET'],
  ['Avita', 'ET'],
  ['Koolibri', 'ET'],
  ['Hea Lugu', 'ET'],
  ['Postimehe Kirjastus', 'ET'],
  ['Petrone Print', 'ET'],
  ['Tuum', 'ET'],
  ['Penguin Books', 'EN'],
  ['Vintage', 'EN'],
  ['HarperCollins', 'EN'],
  ['Bloomsbury', 'EN'],
  ['Pan Macmillan', 'EN'],
  ['Oxford University Press', 'EN'],
  ['Эксмо', 'RU'],
  ['АСТ', 'RU'],
  ['Азбука', 'RU'],
  ['Махаон', 'RU'],
  ['Suhrkamp', 'OTHER'],
  ['Otava', 'OTHER'],
  ['Gallimard', 'OTHER'],
  ['Zvaigzne ABC', 'OTHER'],
  ['Eesti Raadio', 'music'],
  ['Warner Music', 'music'],
  ['Universal Music', 'music'],
  ['Estinfilm', 'film'],
  ['Sony Pictures', 'film'],
  ['Brain Games', 'games'],
  ['Hasbro', 'games'],
  ['Tactic', 'games'],
];

const GENERATED_PUBLISHER: Record<TextLanguage | 'OTHER', (name: string) => string> = {
  ET: (name) => `Kirjastus ${name}`,
  EN: (name) => `${name} Press`,
  RU: (name) => `Издательство «${name}»`,
  OTHER: (name) => `${name} Verlag`,
};

export function publisherRows(random: Random, ids: IdBase, batch: Batch, count: number, now: number): Publishers {
  const out: Publishers = { books: { ET: [], EN: [], RU: [], OTHER: [] }, music: [], film: [], games: [] };
  const add = (name: string, kind: (typeof NAMED_PUBLISHERS)[number][1]) => {
    const id = ids.publisher++;
    push(batch, 'publisher', { id, code: `PUB${String(id).padStart(5, '0')}`, name, description: null, created_at: now, updated_at: now });
    if (kind === 'music' || kind === 'film' || kind === 'games') out[kind].push({ id, language: 'OTHER' });
    else out.books[kind].push({ id, language: kind });
  };
  for (const [name, kind] of NAMED_PUBLISHERS) add(name, kind);
  const names = new Set(NAMED_PUBLISHERS.map(([name]) => name));
  for (let i = NAMED_PUBLISHERS.length; i < count; i++) {
    const language = random.weighted<TextLanguage | 'OTHER'>([
      ['ET', 5],
      ['EN', 2],
      ['RU', 2],
      ['OTHER', 1],
    ]);
    const origin: Origin = language;
    let name = GENERATED_PUBLISHER[language](random.pick(LAST_NAMES[origin]));
    if (names.has(name)) name = `${name} ${i}`;
    names.add(name);
    add(name, language);
  }
  return out;
}

export interface SeriesRef {
  id: number;
  publisherId: number;
  /** The number the next book of the series gets. */
  next: number;
}

const NAMED_SERIES: ReadonlyArray<readonly [string, TextLanguage]> = [
  ['Moodne aeg', 'ET'],
  ['Loomingu Raamatukogu', 'ET'],
  ['Eesti novell', 'ET'],
  ['Põnevik', 'ET'],
  ['Punane raamat', 'ET'],
  ['Penguin Classics', 'EN'],
  ['Oxford World’s Classics', 'EN'],
  ['Азбука-классика', 'RU'],
  ['Звёзды мирового детектива', 'RU'],
];

export function seriesRows(
  random: Random,
  ids: IdBase,
  batch: Batch,
  publishers: Publishers,
  count: number,
  now: number,
): Record<TextLanguage, SeriesRef[]> {
  const out: Record<TextLanguage, SeriesRef[]> = { ET: [], EN: [], RU: [] };
  const add = (name: string, language: TextLanguage) => {
    const id = ids.series++;
    const publisherId = random.pick(publishers.books[language]).id;
    push(batch, 'series', {
      id,
      code: `SER${String(id).padStart(5, '0')}`,
      name,
      publisher_id: publisherId,
      description: null,
      created_at: now,
      updated_at: now,
    });
    out[language].push({ id, publisherId, next: 1 });
  };
  for (const [name, language] of NAMED_SERIES) add(name, language);
  for (let i = NAMED_SERIES.length; i < count; i++) {
    const language = random.weighted<TextLanguage>([
      ['ET', 5],
      ['EN', 2],
      ['RU', 2],
    ]);
    const title = literaryTitle(random, language);
    add(
      language === 'ET' ? `Sari „${title}“` : language === 'EN' ? `The ${title.replace(/^(The|A) /, '')} Series` : `Серия «${title}»`,
      language,
    );
  }
  return out;
}
