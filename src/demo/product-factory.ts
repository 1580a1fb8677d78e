import type { ProductTypeCode } from '../db/schema.js';
import type { PersonRole } from '../modules/catalogue/index.js';
import type { Batch } from './batch.js';
import type { Genre, Leaf } from './categories.js';
import { GIFT_CARD_VALUES, boardGame, officeItem, techItem, type Merchandise } from './merchandise.js';
import type { Origin } from './people-names.js';
import { FAMOUS_AUTHORS, FAMOUS_TITLES, transliterate } from './people-names.js';
import type { People, PersonPool, Publishers, SeriesRef } from './people.js';
import { emitProduct, roundPrice, type ProductSpec, type RowContext } from './product-rows.js';
import type { Random } from './random.js';
import { OTHER_LANGUAGES, bookDescription, bookTitle, isLiterary, literaryTitle, otherLanguageTitle, type TextLanguage } from './titles.js';

// Product families: a paper book often comes with its e-book (pointing back at it) and now and
// then an audiobook; the rest of the range is used books, office supplies, electronics, music,
// films, games and gift cards.

type Family = 'BOOK' | 'EBOOK' | 'AUDIOBOOK' | 'USED_BOOK' | 'OFFICE_EQUIPMENT' | 'TECH' | 'MUSIC' | 'MOVIE' | 'GAME';
const FAMILIES: ReadonlyArray<readonly [Family, number]> = [
  ['BOOK', 62],
  ['EBOOK', 4],
  ['AUDIOBOOK', 2],
  ['USED_BOOK', 5],
  ['OFFICE_EQUIPMENT', 8],
  ['TECH', 2],
  ['MUSIC', 5],
  ['MOVIE', 4],
  ['GAME', 5],
];

/** Book genres by share of the range: some categories are big, some small. */
const BOOK_GENRES: ReadonlyArray<readonly [Genre, number]> = [
  ['fiction', 14],
  ['crime', 12],
  ['scifi', 7],
  ['romance', 6],
  ['historical', 5],
  ['poetry', 2],
  ['drama', 1],
  ['picture', 8],
  ['youth', 6],
  ['activity', 3],
  ['history', 6],
  ['nature', 3],
  ['psychology', 4],
  ['business', 3],
  ['biography', 4],
  ['cooking', 4],
  ['garden', 2],
  ['crafts', 2],
  ['travel', 3],
  ['languages', 3],
  ['school', 3],
];

const WEB2_LEAF: Record<Genre, string | undefined> = {
  fiction: 'BARGAIN-NOVELS',
  romance: 'BARGAIN-NOVELS',
  historical: 'BARGAIN-NOVELS',
  poetry: 'BARGAIN-NOVELS',
  drama: 'BARGAIN-NOVELS',
  crime: 'BARGAIN-CRIME',
  scifi: 'BARGAIN-CRIME',
  picture: 'BARGAIN-CHILDREN',
  youth: 'BARGAIN-CHILDREN',
  activity: 'BARGAIN-CHILDREN',
  history: 'BARGAIN-NONFICTION',
  nature: 'BARGAIN-NONFICTION',
  psychology: 'BARGAIN-NONFICTION',
  business: 'BARGAIN-NONFICTION',
  biography: 'BARGAIN-NONFICTION',
  languages: 'BARGAIN-NONFICTION',
  school: 'BARGAIN-NONFICTION',
  cooking: 'BARGAIN-HOBBIES',
  garden: 'BARGAIN-HOBBIES',
  crafts: 'BARGAIN-HOBBIES',
  travel: 'BARGAIN-HOBBIES',
  used: 'LAST-COPIES',
  writing: 'OUTLET-OFFICE',
  paper: 'OUTLET-OFFICE',
  tech: 'OUTLET-OFFICE',
  boardgames: 'OUTLET-GAMES',
  music: 'OUTLET-MEDIA',
  film: 'OUTLET-MEDIA',
  ebooks: undefined,
  audiobooks: undefined,
  giftcards: undefined,
};

const CHILDREN: ReadonlySet<Genre> = new Set(['picture', 'youth', 'activity']);

interface Work {
  genre: Genre;
  title: string;
  language: string;
  altNames: string[];
  persons: Array<readonly [number, PersonRole]>;
  author: string | undefined;
  publisherId: number | null;
  year: number;
  pages: number;
}

export interface FactoryContext extends RowContext {
  people: People;
  publishers: Publishers;
  series: Record<TextLanguage, SeriesRef[]>;
  leaves: Record<'WEB' | 'WEB2', Leaf[]>;
}

export class ProductFactory {
  private readonly webByGenre = new Map<Genre, Leaf[]>();
  private readonly web2ByCode = new Map<string, Leaf>();
  private readonly thisYear: number;

  constructor(private readonly ctx: FactoryContext) {
    for (const leaf of ctx.leaves.WEB) this.webByGenre.set(leaf.genre, [...(this.webByGenre.get(leaf.genre) ?? []), leaf]);
    for (const leaf of ctx.leaves.WEB2) this.web2ByCode.set(leaf.code.slice('WEB2-'.length), leaf);
    this.thisYear = new Date(ctx.now).getUTCFullYear();
  }

  /** The fixed part of the range: gift cards and the famous authors' best-known titles. Returns how many. */
  classics(batch: Batch): number {
    let count = 0;
    for (const virtual of [false, true]) {
      for (const value of GIFT_CARD_VALUES) {
        const name = virtual ? `E-kinkekaart ${value} €` : `Kinkekaart ${value} €`;
        this.emit(batch, {
          ...this.blank(virtual ? 'VIRTUAL_GIFT_CARD' : 'GIFT_CARD', name, 'giftcards'),
          altNames: virtual ? ['e-gift card', 'электронная подарочная карта'] : ['gift card', 'подарочная карта'],
          shopPriceCents: value * 100,
          vatRate: 0,
          barcode: virtual ? 'none' : 'ean',
          stock: virtual ? 'digital' : 'giftcard',
          outletShare: 0,
          fixedPrice: true,
          size: virtual ? null : [86, 54, 1, 5],
        });
        count++;
      }
    }
    for (const [authorCode, language, title, altNames] of FAMOUS_TITLES) {
      const author = this.ctx.people.famous.get(authorCode)!;
      const genre: Genre =
        authorCode === 'LINDGREN' || title === 'Kaka ja kevad' ? 'picture' : authorCode === 'CHRISTIE' ? 'crime' : 'fiction';
      const work: Work = {
        ...this.work(genre, language),
        title,
        altNames: [...altNames],
        persons: [[author.id, 'AUTHOR']],
        author: author.name,
      };
      const origin = FAMOUS_AUTHORS.find((famous) => famous.code === authorCode)?.origin;
      if (origin !== language) work.persons.push([this.person('TRANSLATOR', language as TextLanguage), 'TRANSLATOR']);
      count += this.bookWithEditions(batch, work, 0.8);
    }
    return count;
  }

  /** One generated family (a book and its editions, or one other product). Returns how many products. */
  next(batch: Batch): number {
    const { random } = this.ctx;
    const family = random.weighted(FAMILIES);
    switch (family) {
      case 'BOOK':
        return this.bookWithEditions(batch, this.work(random.weighted(BOOK_GENRES)), 0.3);
      case 'EBOOK':
      case 'AUDIOBOOK': {
        const work = this.work(random.weighted(BOOK_GENRES));
        this.edition(batch, family, work, null, bookPrice(random, work.genre, false));
        return 1;
      }
      case 'USED_BOOK': {
        const work = this.work(random.weighted(BOOK_GENRES));
        work.year = random.int(1950, this.thisYear - 5);
        this.emit(batch, {
          ...this.bookSpec('USED_BOOK', work, 'used'),
          shopPriceCents: roundPrice(random.int(150, 1200)),
          stock: 'used',
          outletShare: 0.5,
        });
        return 1;
      }
      case 'OFFICE_EQUIPMENT':
        return this.merchandise(
          batch,
          'OFFICE_EQUIPMENT',
          random.chance(0.5) ? 'paper' : 'writing',
          officeItem(random, random.chance(0.5)),
        );
      case 'TECH':
        return this.merchandise(batch, 'TECH', 'tech', techItem(random));
      case 'GAME':
        return this.merchandise(batch, 'GAME', 'boardgames', boardGame(random));
      case 'MUSIC':
      case 'MOVIE':
        return this.media(batch, family);
    }
  }

  private bookWithEditions(batch: Batch, work: Work, ebookShare: number): number {
    const { random } = this.ctx;
    const comingSoon = random.chance(0.05);
    if (comingSoon) work.year = this.thisYear + (random.chance(0.8) ? 0 : 1);
    const price = bookPrice(random, work.genre, true);
    const spec = this.bookSpec('BOOK', work, work.genre);
    const paperId = this.emit(batch, { ...spec, shopPriceCents: price, comingSoon, ...this.seriesOf(work) });
    let count = 1;
    if (!CHILDREN.has(work.genre) && work.genre !== 'school' && random.chance(ebookShare)) {
      this.edition(batch, 'EBOOK', work, paperId, price, comingSoon);
      count++;
    }
    if (random.chance(ebookShare / 4)) {
      this.edition(batch, 'AUDIOBOOK', work, paperId, price, comingSoon);
      count++;
    }
    return count;
  }

  private edition(
    batch: Batch,
    type: 'EBOOK' | 'AUDIOBOOK',
    work: Work,
    paperId: number | null,
    paperPrice: number,
    comingSoon = false,
  ): void {
    const { random } = this.ctx;
    const content = this.webByGenre.get(work.genre)?.[0];
    const shelf = this.webByGenre.get(type === 'EBOOK' ? 'ebooks' : 'audiobooks')![0]!;
    const cd = type === 'AUDIOBOOK' && random.chance(0.2);
    const persons =
      type === 'AUDIOBOOK'
        ? [
            ...work.persons,
            [this.person('READER', work.language === 'RU' ? 'RU' : work.language === 'EN' ? 'EN' : 'ET'), 'READER'] as const,
          ]
        : work.persons;
    this.emit(batch, {
      ...this.bookSpec(type, work, work.genre),
      binding: type === 'EBOOK' ? (random.chance(0.9) ? 'EPUB' : 'PDF') : cd ? 'CD' : 'MP3',
      // Only the paper edition has a physical book's pages and size; a CD has a case.
      pages: type === 'EBOOK' ? work.pages : null,
      size: cd ? [125, 142, 10, 100] : null,
      persons,
      physicalBookId: type === 'EBOOK' ? paperId : null,
      shopPriceCents: roundPrice(paperPrice * (type === 'EBOOK' ? 0.6 : 0.8)),
      webLeaves: content ? [shelf, content] : [shelf],
      stock: cd ? 'normal' : 'digital',
      comingSoon,
      outletShare: 0.05,
    });
  }

  private merchandise(batch: Batch, type: ProductTypeCode, genre: Genre, item: Merchandise): number {
    this.emit(batch, {
      ...this.blank(type, item.name, genre),
      altNames: item.altNames,
      shopPriceCents: item.priceCents,
      size: item.size,
      barcode: 'ean',
      stock: 'normal',
    });
    return 1;
  }

  private media(batch: Batch, type: 'MUSIC' | 'MOVIE'): number {
    const { random } = this.ctx;
    const language = random.weighted<TextLanguage>([
      ['ET', 5],
      ['EN', 4],
      ['RU', 2],
    ]);
    const title = literaryTitle(random, language);
    const artist = this.person('AUTHOR', language);
    const binding = type === 'MUSIC' ? (random.chance(0.7) ? 'CD' : 'VINYL') : random.chance(0.7) ? 'DVD' : 'BLURAY';
    const price =
      type === 'MUSIC'
        ? binding === 'VINYL'
          ? roundPrice(random.int(2490, 3990))
          : roundPrice(random.int(990, 1990))
        : roundPrice(random.int(990, 2490));
    this.emit(batch, {
      ...this.blank(
        type,
        `${title} (${binding === 'BLURAY' ? 'Blu-ray' : binding === 'VINYL' ? 'LP' : binding})`,
        type === 'MUSIC' ? 'music' : 'film',
      ),
      language: type === 'MOVIE' || random.chance(0.5) ? language : null,
      altNames: language === 'RU' ? [transliterate(title)] : [],
      binding,
      year: random.int(1970, this.thisYear),
      persons: [[artist, 'AUTHOR']],
      publisherId: random.pick(type === 'MUSIC' ? this.ctx.publishers.music : this.ctx.publishers.film).id,
      shopPriceCents: price,
      size: type === 'MUSIC' && binding === 'VINYL' ? [315, 315, 5, 230] : [135, 190, 15, 110],
      barcode: 'ean',
      stock: 'normal',
    });
    return 1;
  }

  private work(genre: Genre, fixedLanguage?: string): Work {
    const { random } = this.ctx;
    const drawn =
      fixedLanguage ??
      (genre === 'school'
        ? 'ET'
        : random.weighted<string>([
            ['ET', 60],
            ['EN', 18],
            ['RU', 16],
            ['OTHER', 6],
          ]));
    const other = drawn === 'OTHER';
    const language = other ? random.pick(OTHER_LANGUAGES) : drawn;
    const textLanguage: TextLanguage = language === 'EN' || language === 'RU' ? language : 'ET';
    const title = other ? otherLanguageTitle(random, language) : bookTitle(random, genre, textLanguage);
    const persons: Array<readonly [number, PersonRole]> = [];
    const altNames: string[] = language === 'RU' ? [transliterate(title)] : [];
    let author: string | undefined;
    if (random.chance(0.05) && genre !== 'picture') {
      persons.push([this.person('AUTHOR', 'ET'), 'COMPILER']);
    } else {
      const origin = other ? 'OTHER' : authorOrigin(random, language);
      const authors = random.chance(0.1) ? 2 : 1;
      for (let i = 0; i < authors; i++) {
        const ref = this.personRef('AUTHOR', origin);
        if (!persons.some(([id]) => id === ref.id)) persons.push([ref.id, 'AUTHOR']);
        author ??= ref.name;
      }
      const bookOrigin: Origin = other ? 'OTHER' : textLanguage;
      if (origin !== bookOrigin) {
        persons.push([this.person('TRANSLATOR', bookOrigin), 'TRANSLATOR']);
        if (origin === 'EN' && isLiterary(genre)) altNames.push(literaryTitle(random, 'EN'));
      }
    }
    if (CHILDREN.has(genre) && random.chance(0.8))
      persons.push([this.person('ILLUSTRATOR', random.chance(0.7) ? 'ET' : 'OTHER'), 'ILLUSTRATOR']);
    const publisherPool = this.ctx.publishers.books[other ? 'OTHER' : textLanguage];
    const year = this.thisYear - random.skewed(30, 2.5);
    return {
      genre,
      title,
      language,
      altNames,
      persons,
      author,
      publisherId: publisherPool[random.skewed(publisherPool.length, 2)]!.id,
      year,
      pages: pagesFor(random, genre),
    };
  }

  private seriesOf(work: Work): Pick<ProductSpec, 'seriesId' | 'seriesNumber'> {
    const { random } = this.ctx;
    const pool = work.language === 'ET' || work.language === 'EN' || work.language === 'RU' ? this.ctx.series[work.language] : undefined;
    if (!pool || pool.length === 0 || !random.chance(0.15)) return { seriesId: null, seriesNumber: null };
    const series = pool[random.skewed(pool.length, 1.5)]!;
    return { seriesId: series.id, seriesNumber: series.next++ };
  }

  private bookSpec(type: ProductTypeCode, work: Work, genre: Genre): ProductSpec {
    const { random } = this.ctx;
    const binding = bindingFor(random, work.genre);
    return {
      ...this.blank(type, work.title, genre),
      altNames: work.altNames,
      description: random.chance(0.85) ? bookDescription(random, work.language, work.title, work.author) : null,
      language: work.language,
      binding,
      year: work.year,
      pages: work.pages,
      size: bookSize(random, work.genre, binding, work.pages),
      publisherId: work.publisherId,
      persons: work.persons,
      vatRate: 9,
      barcode: 'isbn',
      web2Leaf: this.web2ByCode.get(WEB2_LEAF[genre] ?? WEB2_LEAF[work.genre] ?? ''),
    };
  }

  private blank(type: ProductTypeCode, name: string, genre: Genre): ProductSpec {
    const leaves = this.webByGenre.get(genre) ?? [];
    return {
      type,
      name,
      altNames: [],
      description: null,
      language: null,
      binding: null,
      year: null,
      pages: null,
      size: null,
      publisherId: null,
      seriesId: null,
      seriesNumber: null,
      physicalBookId: null,
      shopPriceCents: 0,
      vatRate: 24,
      persons: [],
      webLeaves: leaves.length > 0 ? [this.ctx.random.pick(leaves)] : [],
      web2Leaf: this.web2ByCode.get(WEB2_LEAF[genre] ?? ''),
      barcode: 'none',
      stock: 'normal',
      comingSoon: false,
      outletShare: 0.2,
      fixedPrice: false,
    };
  }

  private person(pool: PersonPool, origin: Origin): number {
    return this.personRef(pool, origin).id;
  }

  private personRef(pool: PersonPool, origin: Origin) {
    const list = this.ctx.people.pools[pool][origin];
    return list[this.ctx.random.skewed(list.length, 2)]!;
  }

  private emit(batch: Batch, spec: ProductSpec): number {
    return emitProduct(this.ctx, batch, spec);
  }
}

function authorOrigin(random: Random, language: string): Origin {
  if (language === 'EN')
    return random.weighted<Origin>([
      ['EN', 85],
      ['OTHER', 15],
    ]);
  if (language === 'RU')
    return random.weighted<Origin>([
      ['RU', 80],
      ['EN', 15],
      ['ET', 5],
    ]);
  return random.weighted<Origin>([
    ['ET', 55],
    ['EN', 20],
    ['RU', 8],
    ['OTHER', 17],
  ]);
}

function bookPrice(random: Random, genre: Genre, paper: boolean): number {
  const [low, high] = CHILDREN.has(genre)
    ? [990, 1990]
    : genre === 'school'
      ? [890, 1790]
      : ['cooking', 'travel', 'garden', 'crafts'].includes(genre)
        ? [1990, 3990]
        : [1490, 3290];
  return roundPrice(random.int(low, high) * (paper ? 1 : 0.9));
}

function pagesFor(random: Random, genre: Genre): number {
  if (genre === 'picture') return random.int(12, 24) * 2;
  if (genre === 'activity') return random.int(8, 32) * 2;
  if (genre === 'poetry' || genre === 'drama') return random.int(48, 200);
  return random.int(120, 520) + (random.chance(0.1) ? random.int(100, 400) : 0);
}

function bindingFor(random: Random, genre: Genre): string {
  if (genre === 'picture')
    return random.weighted([
      ['BOARD', 3],
      ['HARDCOVER', 6],
      ['PAPERBACK', 1],
    ]);
  if (genre === 'activity') return random.chance(0.7) ? 'PAPERBACK' : 'SPIRAL';
  if (genre === 'school') return 'PAPERBACK';
  if (genre === 'cooking') return random.chance(0.7) ? 'HARDCOVER' : 'PAPERBACK';
  return random.chance(0.4) ? 'HARDCOVER' : 'PAPERBACK';
}

function bookSize(random: Random, genre: Genre, binding: string, pages: number): readonly [number, number, number, number] {
  const [width, height] =
    CHILDREN.has(genre) && genre !== 'youth'
      ? [random.int(200, 280), random.int(200, 290)]
      : binding === 'HARDCOVER'
        ? [random.int(145, 170), random.int(215, 240)]
        : [random.int(125, 140), random.int(195, 210)];
  const depth = Math.max(3, Math.round(pages * 0.06) + (binding === 'HARDCOVER' || binding === 'BOARD' ? 4 : 1));
  const weight = Math.round(((width * height * depth) / 1000) * 0.7) + (binding === 'HARDCOVER' ? 60 : 0);
  return [width, height, depth, weight];
}
