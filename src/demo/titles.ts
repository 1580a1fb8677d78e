import type { Genre } from './categories.js';
import type { Random } from './random.js';

// Titles that read like real ones, per language: literary titles from adjective and noun lists,
// non-fiction from topic lists. Russian adjectives agree with the noun's gender.

export type TextLanguage = 'ET' | 'EN' | 'RU';

const ET_ADJ = [
  'Vaikne',
  'Punane',
  'Kadunud',
  'Viimane',
  'Salajane',
  'Talvine',
  'Pime',
  'Valge',
  'Unustatud',
  'Kuldne',
  'Hall',
  'Sinine',
  'Metsik',
  'Üksik',
  'Kauge',
  'Tühi',
  'Must',
  'Öine',
  'Hiline',
  'Vana',
  'Igavene',
  'Võõras',
  'Põlev',
  'Külm',
];
const ET_NOUN = [
  'meri',
  'mets',
  'aed',
  'maja',
  'tee',
  'linn',
  'saar',
  'öö',
  'suvi',
  'kiri',
  'tütar',
  'poeg',
  'jõgi',
  'laev',
  'lind',
  'sõda',
  'armastus',
  'talu',
  'kell',
  'peegel',
  'võti',
  'sild',
  'tuli',
  'udu',
  'rand',
  'raba',
  'tuletorn',
  'naine',
  'vend',
  'õde',
  'pruut',
  'kevad',
];
const ET_PLACE = [
  'Saaremaal',
  'Tallinnas',
  'Tartus',
  'Hiiumaal',
  'Peipsi ääres',
  'Pärnus',
  'Lõuna-Eestis',
  'Toompeal',
  'Kalamajas',
  'Narvas',
];

const EN_ADJ = [
  'Silent',
  'Red',
  'Lost',
  'Last',
  'Secret',
  'Winter',
  'Dark',
  'White',
  'Forgotten',
  'Golden',
  'Grey',
  'Blue',
  'Wild',
  'Lonely',
  'Distant',
  'Hidden',
  'Burning',
  'Broken',
  'Quiet',
  'Northern',
  'Long',
  'Bitter',
];
const EN_NOUN = [
  'Sea',
  'Forest',
  'Garden',
  'House',
  'Road',
  'City',
  'Island',
  'Night',
  'Summer',
  'Letter',
  'Daughter',
  'River',
  'Ship',
  'Bird',
  'War',
  'Farm',
  'Clock',
  'Mirror',
  'Key',
  'Bridge',
  'Fire',
  'Shore',
  'Lighthouse',
  'Widow',
  'Orchard',
  'Harbour',
  'Promise',
];
const EN_PLACE = ['Tallinn', 'the North', 'Paris', 'Riga', 'the Baltic', 'Venice', 'Winter', 'Hiiumaa', 'the Marsh', 'Edinburgh'];

type RuGender = 'm' | 'f' | 'n';
const RU_ADJ: ReadonlyArray<Record<RuGender, string>> = [
  { m: 'Тихий', f: 'Тихая', n: 'Тихое' },
  { m: 'Последний', f: 'Последняя', n: 'Последнее' },
  { m: 'Белый', f: 'Белая', n: 'Белое' },
  { m: 'Тёмный', f: 'Тёмная', n: 'Тёмное' },
  { m: 'Старый', f: 'Старая', n: 'Старое' },
  { m: 'Северный', f: 'Северная', n: 'Северное' },
  { m: 'Чужой', f: 'Чужая', n: 'Чужое' },
  { m: 'Долгий', f: 'Долгая', n: 'Долгое' },
  { m: 'Красный', f: 'Красная', n: 'Красное' },
  { m: 'Зимний', f: 'Зимняя', n: 'Зимнее' },
  { m: 'Забытый', f: 'Забытая', n: 'Забытое' },
  { m: 'Золотой', f: 'Золотая', n: 'Золотое' },
];
const RU_NOUN: ReadonlyArray<readonly [string, RuGender]> = [
  ['дом', 'm'],
  ['сад', 'm'],
  ['берег', 'm'],
  ['город', 'm'],
  ['остров', 'm'],
  ['ветер', 'm'],
  ['маяк', 'm'],
  ['ночь', 'f'],
  ['дорога', 'f'],
  ['река', 'f'],
  ['дочь', 'f'],
  ['война', 'f'],
  ['зима', 'f'],
  ['любовь', 'f'],
  ['тень', 'f'],
  ['море', 'n'],
  ['лето', 'n'],
  ['озеро', 'n'],
  ['письмо', 'n'],
  ['зеркало', 'n'],
  ['утро', 'n'],
  ['небо', 'n'],
];

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A novel's or a poem collection's title. */
export function literaryTitle(random: Random, language: TextLanguage): string {
  const pattern = random.int(0, 3);
  if (language === 'ET') {
    if (pattern === 0) return `${random.pick(ET_ADJ)} ${random.pick(ET_NOUN)}`;
    if (pattern === 1) return `${cap(random.pick(ET_NOUN))} ja ${random.pick(ET_NOUN)}`;
    if (pattern === 2) return `${random.pick(ET_ADJ)} ${random.pick(ET_NOUN)} ${random.pick(ET_PLACE)}`;
    return cap(random.pick(ET_NOUN)) + (random.chance(0.5) ? '' : `. ${random.pick(ET_ADJ)} ${random.pick(ET_NOUN)}`);
  }
  if (language === 'EN') {
    if (pattern === 0) return `The ${random.pick(EN_ADJ)} ${random.pick(EN_NOUN)}`;
    if (pattern === 1) return `The ${random.pick(EN_NOUN)} and the ${random.pick(EN_NOUN)}`;
    if (pattern === 2) {
      const noun = random.pick(EN_NOUN);
      return `${/^[AEIOU]/.test(noun) ? 'An' : 'A'} ${noun} in ${random.pick(EN_PLACE)}`;
    }
    return `The ${random.pick(EN_NOUN)} of ${random.pick(EN_PLACE)}`;
  }
  const [noun, gender] = random.pick(RU_NOUN);
  if (pattern <= 1) return `${random.pick(RU_ADJ)[gender]} ${noun}`;
  if (pattern === 2) return `${cap(noun)} и ${random.pick(RU_NOUN)[0]}`;
  return cap(noun);
}

type Topics = Record<TextLanguage, readonly string[]>;

const TOPICS: Partial<Record<Genre, Topics>> = {
  history: {
    ET: [
      'Eesti ajalugu',
      'Vabadussõda',
      'Hansalinnad',
      'Tallinna vanalinn',
      'Külm sõda',
      'Rooma impeerium',
      'Põhjasõda',
      'Laulev revolutsioon',
      'Keskaegne Liivimaa',
    ],
    EN: [
      'A History of the Baltic',
      'The Cold War',
      'The Hanseatic League',
      'The Roman Empire',
      'The Great Northern War',
      'Medieval Europe',
    ],
    RU: ['История Эстонии', 'Холодная война', 'Ганзейский союз', 'Римская империя', 'Северная война', 'Средневековая Европа'],
  },
  nature: {
    ET: ['Eesti linnud', 'Seened ja metsad', 'Läänemere kalad', 'Rabade saladused', 'Eesti taimed', 'Tähistaevas'],
    EN: ['Birds of Northern Europe', 'The Secret Life of Trees', 'Mushrooms of the Forest', 'The Baltic Sea', 'Night Sky Atlas'],
    RU: ['Птицы Эстонии', 'Тайная жизнь деревьев', 'Грибы и леса', 'Балтийское море', 'Звёздное небо'],
  },
  psychology: {
    ET: ['Ärevusest vabaks', 'Tähelepanelik meel', 'Head harjumused', 'Lapse areng', 'Stressi vallas', 'Õnne anatoomia'],
    EN: ['The Mindful Mind', 'Atomic Routines', 'Thinking in Systems', 'The Anxious Brain', 'Raising Calm Children'],
    RU: ['Тревога и покой', 'Осознанность', 'Полезные привычки', 'Развитие ребёнка', 'Анатомия счастья'],
  },
  business: {
    ET: ['Juhtimise alused', 'Turundus väikeettevõttele', 'Raamatupidamine', 'Isiklik rahandus', 'Läbirääkimised', 'Idufirma käsiraamat'],
    EN: ['The Lean Company', 'Marketing for Small Business', 'Personal Finance', 'The Art of Negotiation', 'Leading Teams'],
    RU: ['Основы управления', 'Маркетинг для малого бизнеса', 'Личные финансы', 'Искусство переговоров', 'Бухгалтерия'],
  },
  biography: {
    ET: ['Minu elu', 'Mälestused', 'Kirjad sõbrale', 'Lapsepõlve suved', 'Teekond', 'Päevikud'],
    EN: ['A Life in Letters', 'Memoirs', 'The Long Walk', 'Diaries', 'Summers of Childhood'],
    RU: ['Моя жизнь', 'Воспоминания', 'Письма другу', 'Дневники', 'Лето детства'],
  },
  cooking: {
    ET: [
      'Eesti köök',
      'Itaalia köök',
      'Kiired õhtusöögid',
      'Pühade road',
      'Leivaraamat',
      'Vegan igapäevaks',
      'Supid ja hautised',
      'Kala ja mereannid',
    ],
    EN: [
      'The Nordic Kitchen',
      'Quick Weeknight Dinners',
      'Baking Bread at Home',
      'Plant-Based Every Day',
      'Soups and Stews',
      'The Holiday Table',
    ],
    RU: ['Эстонская кухня', 'Быстрые ужины', 'Домашний хлеб', 'Супы и рагу', 'Праздничный стол', 'Итальянская кухня'],
  },
  garden: {
    ET: ['Köögiviljaaed', 'Roosid', 'Toataimed', 'Kodu remont', 'Väike aed', 'Puude lõikamine'],
    EN: ['The Kitchen Garden', 'Roses', 'Houseplants', 'Home Repairs', 'The Small Garden'],
    RU: ['Огород', 'Розы', 'Комнатные растения', 'Ремонт дома', 'Маленький сад'],
  },
  crafts: {
    ET: ['Kudumine', 'Eesti mustrid', 'Heegeldamine', 'Tikkimine', 'Puutöö', 'Lapitehnika'],
    EN: ['Knitting Nordic Patterns', 'Crochet', 'Embroidery', 'Woodworking', 'Patchwork'],
    RU: ['Вязание', 'Эстонские узоры', 'Вышивка', 'Работа по дереву', 'Лоскутное шитьё'],
  },
  travel: {
    ET: ['Eesti matkarajad', 'Reisijuht: Itaalia', 'Reisijuht: Norra', 'Saared', 'Läti ja Leedu', 'Jalgrattaga Euroopas'],
    EN: ['Walking in Estonia', 'Travel Guide: Italy', 'Travel Guide: Norway', 'The Baltic States', 'Cycling Europe'],
    RU: ['Походы по Эстонии', 'Путеводитель: Италия', 'Путеводитель: Норвегия', 'Страны Балтии', 'Европа на велосипеде'],
  },
  languages: {
    ET: [
      'Eesti-inglise sõnaraamat',
      'Inglise keele grammatika',
      'Saksa keel algajatele',
      'Vene keele vestmik',
      'Soome keele õpik',
      'Eesti keele käsiraamat',
    ],
    EN: ['Estonian for Beginners', 'English Grammar in Use', 'Oxford Pocket Dictionary', 'Colloquial Estonian', 'Business English'],
    RU: ['Эстонский язык для начинающих', 'Англо-русский словарь', 'Грамматика английского языка', 'Эстонско-русский словарь'],
  },
  school: {
    ET: ['Matemaatika', 'Eesti keel', 'Loodusõpetus', 'Ajalugu', 'Füüsika', 'Keemia', 'Geograafia', 'Kirjandus'],
    EN: ['Mathematics', 'Physics', 'Chemistry', 'Biology'],
    RU: ['Математика', 'Эстонский язык', 'Природоведение', 'История', 'Физика'],
  },
  activity: {
    ET: ['Värvimisraamat', 'Kleepsuraamat', 'Mõistatused', 'Joonistame koos', 'Tähed ja numbrid', 'Labürindid'],
    EN: ['Colouring Book', 'Sticker Book', 'Puzzles and Mazes', 'Let’s Draw', 'Letters and Numbers'],
    RU: ['Раскраска', 'Книжка с наклейками', 'Головоломки', 'Рисуем вместе', 'Буквы и цифры'],
  },
};

const EDITION: Record<TextLanguage, readonly string[]> = {
  ET: ['', '', '', ': täiendatud väljaanne', '. Teine trükk', ' algajatele', ': praktiline käsiraamat', ' piltides'],
  EN: ['', '', '', ': Revised Edition', ': A Practical Guide', ' for Beginners', ': An Illustrated History', ', Second Edition'],
  RU: ['', '', '', '. Переиздание', ' для начинающих', '. Практическое руководство', ' в картинках', '. Второе издание'],
};

const SCHOOL_GRADE: Record<TextLanguage, (grade: number) => string> = {
  ET: (grade) => ` ${grade}. klassile`,
  EN: (grade) => `: Year ${grade}`,
  RU: (grade) => ` для ${grade} класса`,
};

/** Whether books of the genre get literary titles (and, when translated, an original title). */
export function isLiterary(genre: Genre): boolean {
  return TOPICS[genre] === undefined;
}

const OTHER_TITLES: Record<string, readonly string[]> = {
  DE: ['Der stille See', 'Das letzte Haus', 'Die Nacht am Meer', 'Sommer in Tallinn'],
  FI: ['Hiljainen meri', 'Viimeinen kesä', 'Punainen talo', 'Yö saaristossa'],
  FR: ['La maison rouge', 'Le dernier été', 'La mer silencieuse'],
  LV: ['Klusā jūra', 'Pēdējā vasara', 'Sarkanā māja'],
  SV: ['Den sista sommaren', 'Det tysta havet', 'Huset vid stranden'],
};

/** Languages other than et/en/ru that some books come in. */
export const OTHER_LANGUAGES = Object.keys(OTHER_TITLES);

/** A title in one of OTHER_LANGUAGES. */
export function otherLanguageTitle(random: Random, language: string): string {
  return random.pick(OTHER_TITLES[language] ?? OTHER_TITLES.DE!);
}

/** A book's title for a leaf of the given genre. */
export function bookTitle(random: Random, genre: Genre, language: TextLanguage): string {
  const topics = TOPICS[genre]?.[language];
  if (topics === undefined) return literaryTitle(random, language);
  const topic = random.pick(topics);
  if (genre === 'school') return `${topic}${SCHOOL_GRADE[language](random.int(1, 12))}`;
  return `${topic}${random.pick(EDITION[language])}`;
}

/** A short blurb in the book's language (or Estonian for other languages: the shop's own text). */
export function bookDescription(random: Random, language: string, title: string, author: string | undefined): string {
  const by = author ?? '';
  switch (language) {
    case 'EN':
      return random.pick([
        `${title} is ${by ? `${by}'s` : 'a'} story of love, loss and the places we carry with us.`,
        `A gripping read${by ? ` from ${by}` : ''}: ${title} will keep you turning the pages late into the night.`,
        `${title}${by ? ` by ${by}` : ''}. A book about courage, memory and home.`,
      ]);
    case 'RU':
      return random.pick([
        `«${title}»${by ? ` — ${by}` : ''}. История о любви, памяти и доме.`,
        `Книга «${title}» не отпустит вас до последней страницы.`,
        `«${title}» — тонкая и честная книга${by ? ` автора ${by}` : ''}.`,
      ]);
    default:
      return random.pick([
        `„${title}“${by ? ` – ${by}` : ''}. Lugu armastusest, mälust ja kodust.`,
        `Raamat „${title}“ hoiab lugejat viimase leheküljeni.`,
        `„${title}“ on aus ja soe raamat${by ? `, autor ${by}` : ''}.`,
        `Uus väljaanne: „${title}“. Sobib kingituseks.`,
      ]);
  }
}
