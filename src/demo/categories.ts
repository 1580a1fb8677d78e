import type { Insertable } from 'kysely';
import type { CategoryNameTable, CategoryTable } from '../modules/catalogue/index.js';

// The demo category trees: WEB, the main shop, is rich (3 levels in places); WEB2, the outlet, is
// small. A leaf names the kind of products it holds (`genre`), which drives the generated titles.

export type Genre =
  | 'fiction'
  | 'crime'
  | 'scifi'
  | 'romance'
  | 'historical'
  | 'poetry'
  | 'drama'
  | 'picture'
  | 'youth'
  | 'activity'
  | 'history'
  | 'nature'
  | 'psychology'
  | 'business'
  | 'biography'
  | 'cooking'
  | 'garden'
  | 'crafts'
  | 'travel'
  | 'languages'
  | 'school'
  | 'ebooks'
  | 'audiobooks'
  | 'writing'
  | 'paper'
  | 'music'
  | 'film'
  | 'boardgames'
  | 'tech'
  | 'giftcards'
  | 'used';

interface Node {
  key: string;
  et: string;
  en: string;
  ru: string;
  genre?: Genre;
  children?: Node[];
}

const n = (key: string, et: string, en: string, ru: string, rest: Partial<Node> = {}): Node => ({ key, et, en, ru, ...rest });

const WEB_TREE: Node[] = [
  n('FICTION', 'Ilukirjandus', 'Fiction', 'Художественная литература', {
    children: [
      n('NOVELS', 'Romaanid ja jutustused', 'Novels and stories', 'Романы и повести', { genre: 'fiction' }),
      n('GENRE-FICTION', 'Žanrikirjandus', 'Genre fiction', 'Жанровая литература', {
        children: [
          n('CRIME', 'Krimi ja põnevus', 'Crime and thrillers', 'Детективы и триллеры', { genre: 'crime' }),
          n('SCIFI', 'Ulme ja fantaasia', 'Science fiction and fantasy', 'Фантастика и фэнтези', { genre: 'scifi' }),
          n('ROMANCE', 'Armastusromaanid', 'Romance', 'Любовные романы', { genre: 'romance' }),
          n('HISTORICAL', 'Ajalooline proosa', 'Historical fiction', 'Исторический роман', { genre: 'historical' }),
        ],
      }),
      n('POETRY', 'Luule', 'Poetry', 'Поэзия', { genre: 'poetry' }),
      n('DRAMA', 'Näitekirjandus', 'Drama', 'Драматургия', { genre: 'drama' }),
    ],
  }),
  n('CHILDREN', 'Lastekirjandus', 'Children’s books', 'Детская литература', {
    children: [
      n('PICTURE', 'Pildiraamatud', 'Picture books', 'Книжки с картинками', { genre: 'picture' }),
      n('YOUTH', 'Noortekirjandus', 'Young adult', 'Подростковая литература', { genre: 'youth' }),
      n('ACTIVITY', 'Tegevusraamatud', 'Activity books', 'Развивающие книги', { genre: 'activity' }),
    ],
  }),
  n('NONFICTION', 'Teadmiskirjandus', 'Non-fiction', 'Научно-популярная литература', {
    children: [
      n('HISTORY', 'Ajalugu', 'History', 'История', {
        children: [
          n('HISTORY-EE', 'Eesti ajalugu', 'Estonian history', 'История Эстонии', { genre: 'history' }),
          n('HISTORY-WORLD', 'Maailma ajalugu', 'World history', 'Всемирная история', { genre: 'history' }),
        ],
      }),
      n('NATURE', 'Loodus', 'Nature', 'Природа', { genre: 'nature' }),
      n('PSYCHOLOGY', 'Psühholoogia', 'Psychology', 'Психология', { genre: 'psychology' }),
      n('BUSINESS', 'Majandus ja juhtimine', 'Business and management', 'Экономика и управление', { genre: 'business' }),
      n('BIOGRAPHY', 'Elulood ja mälestused', 'Biographies and memoirs', 'Биографии и мемуары', { genre: 'biography' }),
    ],
  }),
  n('HOBBIES', 'Hobid ja vaba aeg', 'Hobbies and leisure', 'Хобби и досуг', {
    children: [
      n('COOKING', 'Kokaraamatud', 'Cookbooks', 'Кулинария', { genre: 'cooking' }),
      n('GARDEN', 'Aed ja kodu', 'Home and garden', 'Дом и сад', { genre: 'garden' }),
      n('CRAFTS', 'Käsitöö', 'Crafts', 'Рукоделие', { genre: 'crafts' }),
      n('TRAVEL', 'Reisimine', 'Travel', 'Путешествия', { genre: 'travel' }),
    ],
  }),
  n('EDUCATION', 'Õppekirjandus', 'Education', 'Учебная литература', {
    children: [
      n('LANGUAGES', 'Keeleõpe ja sõnaraamatud', 'Languages and dictionaries', 'Языки и словари', { genre: 'languages' }),
      n('SCHOOL', 'Kooliõpikud', 'School textbooks', 'Школьные учебники', { genre: 'school' }),
    ],
  }),
  n('EBOOKS', 'E-raamatud', 'E-books', 'Электронные книги', { genre: 'ebooks' }),
  n('AUDIOBOOKS', 'Audioraamatud', 'Audiobooks', 'Аудиокниги', { genre: 'audiobooks' }),
  n('OFFICE', 'Kontorikaubad', 'Office supplies', 'Канцтовары', {
    children: [
      n('WRITING', 'Kirjutusvahendid', 'Writing instruments', 'Письменные принадлежности', { genre: 'writing' }),
      n('PAPER', 'Märkmikud ja paber', 'Notebooks and paper', 'Блокноты и бумага', { genre: 'paper' }),
    ],
  }),
  n('MEDIA', 'Muusika ja film', 'Music and film', 'Музыка и кино', {
    children: [n('MUSIC', 'Muusika', 'Music', 'Музыка', { genre: 'music' }), n('FILM', 'Filmid', 'Films', 'Фильмы', { genre: 'film' })],
  }),
  n('GAMES-TECH', 'Mängud ja tehnika', 'Games and electronics', 'Игры и техника', {
    children: [
      n('BOARDGAMES', 'Lauamängud', 'Board games', 'Настольные игры', { genre: 'boardgames' }),
      n('TECH', 'E-lugerid ja tehnika', 'E-readers and electronics', 'Электронные книги и техника', { genre: 'tech' }),
    ],
  }),
  n('GIFTCARDS', 'Kinkekaardid', 'Gift cards', 'Подарочные карты', { genre: 'giftcards' }),
  n('USED', 'Kasutatud raamatud', 'Used books', 'Букинистика', { genre: 'used' }),
];

const WEB2_TREE: Node[] = [
  n('BARGAIN', 'Soodusraamatud', 'Bargain books', 'Книги со скидкой', {
    children: [
      n('BARGAIN-FICTION', 'Ilukirjandus', 'Fiction', 'Художественная литература', {
        children: [
          n('BARGAIN-NOVELS', 'Romaanid', 'Novels', 'Романы', { genre: 'fiction' }),
          n('BARGAIN-CRIME', 'Krimi ja ulme', 'Crime and sci-fi', 'Детективы и фантастика', { genre: 'crime' }),
        ],
      }),
      n('BARGAIN-CHILDREN', 'Lastele', 'For children', 'Детям', { genre: 'picture' }),
      n('BARGAIN-NONFICTION', 'Teadmiskirjandus', 'Non-fiction', 'Научно-популярная литература', { genre: 'history' }),
      n('BARGAIN-HOBBIES', 'Kokandus ja hobid', 'Cooking and hobbies', 'Кулинария и хобби', { genre: 'cooking' }),
    ],
  }),
  n('LAST-COPIES', 'Viimased eksemplarid', 'Last copies', 'Последние экземпляры', { genre: 'used' }),
  n('OUTLET-GIFTS', 'Kontor ja kingitused', 'Office and gifts', 'Офис и подарки', {
    children: [
      n('OUTLET-OFFICE', 'Kontorikaubad', 'Office supplies', 'Канцтовары', { genre: 'paper' }),
      n('OUTLET-GAMES', 'Mängud', 'Games', 'Игры', { genre: 'boardgames' }),
      n('OUTLET-MEDIA', 'Muusika ja film', 'Music and film', 'Музыка и кино', { genre: 'music' }),
    ],
  }),
];

export interface Leaf {
  id: number;
  code: string;
  genre: Genre;
}

export interface CategoryRows {
  categories: Insertable<CategoryTable>[];
  names: Insertable<CategoryNameTable>[];
  /** Leaves of each store, with the genre of the products they hold. */
  leaves: Record<'WEB' | 'WEB2', Leaf[]>;
  /** Every category id of each store (for client preferences). */
  ids: Record<'WEB' | 'WEB2', number[]>;
}

const DESCRIPTIONS = {
  et: (name: string) => `${name}: valik meie poest.`,
  en: (name: string) => `${name}: a selection from our shop.`,
  ru: (name: string) => `${name}: подборка нашего магазина.`,
};

/** Category rows of both stores with ids from `firstId`; codes are `<STORE>-<KEY>`. */
export function categoryRows(firstId: number, now: number): CategoryRows {
  const out: CategoryRows = { categories: [], names: [], leaves: { WEB: [], WEB2: [] }, ids: { WEB: [], WEB2: [] } };
  let nextId = firstId;
  const visit = (store: 'WEB' | 'WEB2', node: Node, parentId: number | null, level: number, position: number) => {
    const id = nextId++;
    const code = `${store}-${node.key}`;
    out.categories.push({
      id,
      code,
      store_code: store,
      parent_id: parentId,
      level,
      position,
      is_active: true,
      created_at: now,
      updated_at: now,
    });
    for (const language of ['et', 'en', 'ru'] as const) {
      out.names.push({
        category_id: id,
        language,
        name: node[language],
        description: level === 1 ? DESCRIPTIONS[language](node[language]) : null,
      });
    }
    out.ids[store].push(id);
    if (node.genre !== undefined && node.children === undefined) out.leaves[store].push({ id, code, genre: node.genre });
    node.children?.forEach((child, index) => visit(store, child, id, level + 1, index + 1));
  };
  WEB_TREE.forEach((node, index) => visit('WEB', node, null, 1, index + 1));
  WEB2_TREE.forEach((node, index) => visit('WEB2', node, null, 1, index + 1));
  return out;
}
