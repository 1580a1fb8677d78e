import { DAY } from './accounts.js';
import { push, type Batch, type IdBase } from './batch.js';
import type { People } from './people.js';
import { roundPrice, type ProductRegistry } from './product-rows.js';
import type { Random } from './random.js';

// Campaigns (one current, one past, one future in WEB; a current one in the outlet), curated
// product lists and quotes.

type Names = Record<'et' | 'en' | 'ru', string>;

interface CampaignDef {
  key: string;
  store: 'WEB' | 'WEB2';
  /** Days from now; valid_to is exclusive. */
  from: number;
  to: number;
  names: Names;
  descriptions: Names;
}

const CAMPAIGNS: readonly CampaignDef[] = [
  {
    key: 'BOOK-WEEK',
    store: 'WEB',
    from: -7,
    to: 14,
    names: { et: 'Raamatunädal', en: 'Book week', ru: 'Неделя книги' },
    descriptions: {
      et: 'Sajad raamatud kuni 30% soodsamalt.',
      en: 'Hundreds of books up to 30% off.',
      ru: 'Сотни книг со скидкой до 30%.',
    },
  },
  {
    key: 'WINTER-SALE',
    store: 'WEB',
    from: -60,
    to: -30,
    names: { et: 'Talvine allahindlus', en: 'Winter sale', ru: 'Зимняя распродажа' },
    descriptions: { et: 'Talve parimad pakkumised.', en: 'The best offers of the winter.', ru: 'Лучшие предложения зимы.' },
  },
  {
    key: 'SUMMER-READING',
    store: 'WEB',
    from: 20,
    to: 50,
    names: { et: 'Suvelugemine', en: 'Summer reading', ru: 'Летнее чтение' },
    descriptions: { et: 'Raamatud randa ja puhkusele.', en: 'Books for the beach and the holidays.', ru: 'Книги для пляжа и отпуска.' },
  },
  {
    key: 'OUTLET-WEEK',
    store: 'WEB2',
    from: -3,
    to: 30,
    names: { et: 'Outleti nädal', en: 'Outlet week', ru: 'Неделя аутлета' },
    descriptions: {
      et: 'Viimased eksemplarid veel soodsamalt.',
      en: 'Last copies for even less.',
      ru: 'Последние экземпляры ещё дешевле.',
    },
  },
];

const LISTS: ReadonlyArray<{ key: string; store: 'WEB' | 'WEB2'; active: boolean; names: Names }> = [
  { key: 'STAFF-PICKS', store: 'WEB', active: true, names: { et: 'Töötajate soovitused', en: 'Staff picks', ru: 'Выбор сотрудников' } },
  { key: 'BOOK-CLUB', store: 'WEB', active: true, names: { et: 'Raamatuklubi', en: 'Book club', ru: 'Книжный клуб' } },
  { key: 'CHRISTMAS', store: 'WEB', active: false, names: { et: 'Jõuluraamatud', en: 'Christmas books', ru: 'Рождественские книги' } },
  {
    key: 'OUTLET-FAVOURITES',
    store: 'WEB2',
    active: true,
    names: { et: 'Outleti lemmikud', en: 'Outlet favourites', ru: 'Любимое в аутлете' },
  },
];

const QUOTES: Record<'et' | 'en' | 'ru', readonly string[]> = {
  et: [
    'Raamat on aken, mille kaudu näeme teisi maailmu.',
    'Iga lugu algab ühest julgest lausest.',
    'Meri ei küsi, kas sa oled valmis.',
    'Kodu on seal, kus keegi ootab.',
    'Tõde ei karda valgust.',
    'Mõnikord on vaikus kõige valjem vastus.',
    'Mälu on meie kõige truum kaaslane.',
  ],
  en: [
    'A book is a window into other worlds.',
    'Every story begins with one brave sentence.',
    'Home is where someone waits for you.',
    'Sometimes silence is the loudest answer.',
    'Memory is our most faithful companion.',
  ],
  ru: [
    'Книга — это окно в другие миры.',
    'Каждая история начинается с одной смелой фразы.',
    'Дом там, где тебя ждут.',
    'Иногда тишина — самый громкий ответ.',
    'Память — наш самый верный спутник.',
  ],
};

const STORE_BIT = { WEB: 1, WEB2: 2 } as const;

/** Indexes into the registry of products sold in the store and fit for promotion. */
export function promotable(registry: ProductRegistry, store: 'WEB' | 'WEB2', booksOnly = false): number[] {
  const out: number[] = [];
  for (let i = 0; i < registry.ids.length; i++) {
    if (!registry.sellable[i] || !(registry.stores[i]! & STORE_BIT[store])) continue;
    const type = registry.types[i]!;
    if (booksOnly ? type !== 'BOOK' : type === 'GIFT_CARD' || type === 'VIRTUAL_GIFT_CARD') continue;
    out.push(i);
  }
  return out;
}

export function merchandisingRows(random: Random, ids: IdBase, batch: Batch, registry: ProductRegistry, people: People, now: number): void {
  const perCampaign = Math.max(20, Math.min(2000, Math.round(registry.ids.length / 30)));
  CAMPAIGNS.forEach((def, index) => {
    const id = ids.campaign++;
    const code = `${def.store}-${def.key}`;
    push(batch, 'campaign', {
      id,
      code,
      store_code: def.store,
      valid_from: now + def.from * DAY,
      valid_to: now + def.to * DAY,
      is_active: true,
      position: index + 1,
      image_url: `https://img.example/campaigns/${code.toLowerCase()}.jpg`,
      created_at: now + Math.min(def.from, 0) * DAY - 10 * DAY,
      updated_at: now,
    });
    for (const language of ['et', 'en', 'ru'] as const) {
      push(batch, 'campaign_name', { campaign_id: id, language, name: def.names[language], description: def.descriptions[language] });
    }
    random.sample(promotable(registry, def.store), perCampaign).forEach((at, position) => {
      const price = registry.prices[at]!;
      const retail = Math.min(price - 10, roundPrice(price * (0.7 + random.next() * 0.15)));
      if (retail <= 0) return;
      push(batch, 'campaign_price', {
        campaign_id: id,
        product_id: registry.ids[at]!,
        customer_kind: 'RETAIL',
        price_cents: retail,
        position: position + 1,
      });
      if (random.chance(0.6)) {
        const business = Math.min(retail, roundPrice(price * (0.65 + random.next() * 0.15)));
        push(batch, 'campaign_price', {
          campaign_id: id,
          product_id: registry.ids[at]!,
          customer_kind: 'BUSINESS',
          price_cents: business,
          position: position + 1,
        });
      }
    });
  });

  LISTS.forEach((def, index) => {
    const id = ids.product_list++;
    push(batch, 'product_list', {
      id,
      code: `${def.store}-${def.key}`,
      store_code: def.store,
      is_active: def.active,
      position: index + 1,
      created_at: now - 30 * DAY,
      updated_at: now,
    });
    for (const language of ['et', 'en', 'ru'] as const)
      push(batch, 'product_list_name', { product_list_id: id, language, name: def.names[language] });
    random.sample(promotable(registry, def.store, true), random.int(12, 24)).forEach((at, position) => {
      push(batch, 'product_list_item', { product_list_id: id, product_id: registry.ids[at]!, position: position + 1 });
    });
  });

  const books = promotable(registry, 'WEB', true);
  const famous = [...people.famous.values()];
  const quotes = Math.max(40, Math.min(2000, Math.round(registry.ids.length / 75)));
  for (let i = 0; i < quotes; i++) {
    const id = ids.quote++;
    const language = random.weighted<'et' | 'en' | 'ru'>([
      ['et', 6],
      ['en', 2],
      ['ru', 2],
    ]);
    const aboutPerson = i % 2 === 0 || books.length === 0;
    push(batch, 'quote', {
      id,
      code: `Q${String(id).padStart(6, '0')}`,
      language,
      text: random.pick(QUOTES[language]),
      product_id: aboutPerson ? null : registry.ids[random.pick(books)]!,
      person_id: aboutPerson ? random.pick(famous).id : null,
      created_at: now - random.int(1, 400) * DAY,
    });
  }
}
