// Names for generated persons, by origin. Authors of Russian-language books keep Cyrillic names;
// Russian classics translated into Estonian appear in Estonian transliteration, as on their covers.

export type Origin = 'ET' | 'EN' | 'RU' | 'OTHER';

export const FIRST_NAMES: Record<Origin, readonly string[]> = {
  ET: [
    'Mari', 'Jaan', 'Kadri', 'Tõnu', 'Mart', 'Liis', 'Andrus', 'Kätlin', 'Jüri', 'Ülle', 'Märt', 'Piret', 'Rein', 'Eha',
    'Toomas', 'Triin', 'Hendrik', 'Kristiina', 'Mihkel', 'Helju', 'Ott', 'Epp', 'Jaak', 'Maarja', 'Siim', 'Urmas',
    'Viivi', 'Kersti', 'Leelo', 'Ene', 'Priit', 'Ülo', 'Aino', 'Kärt', 'Tõnis', 'Elo', 'Indrek', 'Kaja', 'Olev', 'Ly',
  ],
  EN: [
    'Emma', 'James', 'Olivia', 'William', 'Sophie', 'Thomas', 'Charlotte', 'Henry', 'Alice', 'George', 'Rachel', 'Daniel',
    'Margaret', 'Edward', 'Hannah', 'Samuel', 'Claire', 'Oliver', 'Lucy', 'Peter', 'Kate', 'Michael', 'Anne', 'David',
  ],
  RU: [
    'Анна', 'Иван', 'Мария', 'Сергей', 'Ольга', 'Дмитрий', 'Елена', 'Алексей', 'Наталья', 'Михаил', 'Татьяна', 'Андрей',
    'Ирина', 'Николай', 'Светлана', 'Павел', 'Людмила', 'Владимир', 'Екатерина', 'Борис', 'Вера', 'Григорий',
  ],
  OTHER: [
    'Astrid', 'Lars', 'Sofi', 'Mika', 'Elina', 'Jonas', 'Ingrid', 'Pekka', 'Greta', 'Matthias', 'Claire', 'Marco',
    'Laura', 'Andrejs', 'Rūta', 'Jurgis', 'Hanna', 'Tove', 'Karl', 'Amélie',
  ],
};

export const LAST_NAMES: Record<Origin, readonly string[]> = {
  ET: [
    'Tamm', 'Saar', 'Sepp', 'Mägi', 'Kask', 'Kukk', 'Rebane', 'Ilves', 'Pärn', 'Koppel', 'Lepik', 'Kõiv', 'Mets', 'Õunapuu',
    'Jõgi', 'Põder', 'Kivi', 'Rätsep', 'Lõhmus', 'Käär', 'Vaher', 'Laur', 'Teder', 'Mänd', 'Hunt', 'Oja', 'Raud', 'Veski',
    'Luik', 'Ots', 'Tänav', 'Kuusk', 'Värk', 'Süvalep', 'Põldma', 'Nõmm', 'Järv', 'Allik', 'Karu', 'Sarapuu',
  ],
  EN: [
    'Smith', 'Johnson', 'Brown', 'Taylor', 'Wilson', 'Davies', 'Evans', 'Thomas', 'Roberts', 'Walker', 'Wright', 'Green',
    'Hall', 'Wood', 'Clarke', 'Hughes', 'Edwards', 'Turner', 'Hill', 'Moore', 'Cooper', 'Ward', 'Morris', 'King',
  ],
  RU: [
    'Иванов', 'Петров', 'Смирнов', 'Кузнецов', 'Попов', 'Соколов', 'Лебедев', 'Козлов', 'Новиков', 'Морозов', 'Волков',
    'Соловьёв', 'Васильев', 'Зайцев', 'Павлов', 'Семёнов', 'Голубев', 'Виноградов', 'Богданов', 'Воробьёв',
  ],
  OTHER: [
    'Lindqvist', 'Virtanen', 'Korhonen', 'Nieminen', 'Berg', 'Schneider', 'Fischer', 'Dubois', 'Rossi', 'Bērziņš',
    'Kalniņš', 'Kazlauskas', 'Jansson', 'Hansen', 'Weber', 'Laine', 'Ozola', 'Petrauskas', 'Martin', 'Nyström',
  ],
};

/** Russian surnames of women take -a (Иванова). */
const FEMALE_NAMES = new Set([
  'Mari', 'Kadri', 'Liis', 'Kätlin', 'Ülle', 'Piret', 'Eha', 'Triin', 'Kristiina', 'Helju', 'Epp', 'Maarja', 'Viivi', 'Kersti', 'Leelo',
  'Ene', 'Aino', 'Kärt', 'Elo', 'Kaja', 'Ly', 'Emma', 'Olivia', 'Sophie', 'Charlotte', 'Alice', 'Rachel', 'Margaret', 'Hannah', 'Claire',
  'Lucy', 'Kate', 'Anne',
]);
const RU_FEMALE = new Set(['Анна', 'Мария', 'Ольга', 'Елена', 'Наталья', 'Татьяна', 'Ирина', 'Светлана', 'Людмила', 'Екатерина', 'Вера']);

export function isFemaleName(first: string): boolean {
  return FEMALE_NAMES.has(first) || RU_FEMALE.has(first);
}

export function fullName(origin: Origin, first: string, last: string): string {
  if (origin === 'RU' && RU_FEMALE.has(first)) return `${first} ${last.endsWith('ий') ? `${last.slice(0, -2)}ая` : `${last}а`}`;
  return `${first} ${last}`;
}

/** Well-known authors every demo shop should have; the first ones carry hand-written titles. */
export const FAMOUS_AUTHORS: ReadonlyArray<{ code: string; name: string; origin: Origin; description?: string }> = [
  { code: 'TAMMSAARE', name: 'A. H. Tammsaare', origin: 'ET', description: 'Eesti kirjanik (1878–1940), romaanisarja „Tõde ja õigus“ autor.' },
  { code: 'KIVIRAHK', name: 'Andrus Kivirähk', origin: 'ET', description: 'Eesti kirjanik ja näitekirjanik, „Rehepapi“ ja „Mees, kes teadis ussisõnu“ autor.' },
  { code: 'ONNEPALU', name: 'Tõnu Õnnepalu', origin: 'ET', description: 'Eesti kirjanik ja tõlkija, kirjutanud ka nime Emil Tode all.' },
  { code: 'KROSS', name: 'Jaan Kross', origin: 'ET' },
  { code: 'LUTS', name: 'Oskar Luts', origin: 'ET' },
  { code: 'VILDE', name: 'Eduard Vilde', origin: 'ET' },
  { code: 'KOIDULA', name: 'Lydia Koidula', origin: 'ET' },
  { code: 'TUNGAL', name: 'Leelo Tungal', origin: 'ET' },
  { code: 'EHIN', name: 'Kristiina Ehin', origin: 'ET' },
  { code: 'UNDUSK', name: 'Jaan Undusk', origin: 'ET' },
  { code: 'AUSTEN', name: 'Jane Austen', origin: 'EN' },
  { code: 'ORWELL', name: 'George Orwell', origin: 'EN' },
  { code: 'CHRISTIE', name: 'Agatha Christie', origin: 'EN' },
  { code: 'DOSTOJEVSKI', name: 'Fjodor Dostojevski', origin: 'RU' },
  { code: 'BULGAKOV', name: 'Михаил Булгаков', origin: 'RU' },
  { code: 'TOLSTOI', name: 'Лев Толстой', origin: 'RU' },
  { code: 'LINDGREN', name: 'Astrid Lindgren', origin: 'OTHER' },
];

/** Hand-written titles of the famous authors: [author code, language, title, alternative names]. */
export const FAMOUS_TITLES: ReadonlyArray<readonly [string, string, string, readonly string[]]> = [
  ['TAMMSAARE', 'ET', 'Tõde ja õigus I', ['Tode ja oigus', 'Truth and Justice']],
  ['TAMMSAARE', 'ET', 'Tõde ja õigus II', ['Tode ja oigus']],
  ['TAMMSAARE', 'ET', 'Põrgupõhja uus Vanapagan', ['Porgupohja uus Vanapagan', 'The Misadventures of the New Satan']],
  ['TAMMSAARE', 'EN', 'Truth and Justice: Andres and Pearu', ['Tõde ja õigus']],
  ['KIVIRAHK', 'ET', 'Rehepapp ehk November', ['Rehepapp', 'Old Barny', 'November']],
  ['KIVIRAHK', 'ET', 'Mees, kes teadis ussisõnu', ['ussisõnad', 'The Man Who Spoke Snakish']],
  ['KIVIRAHK', 'EN', 'The Man Who Spoke Snakish', ['Mees, kes teadis ussisõnu']],
  ['KIVIRAHK', 'RU', 'Последний, кто знал змеиную молвь', ['Mees, kes teadis ussisõnu']],
  ['KIVIRAHK', 'ET', 'Kaka ja kevad', ['lastele']],
  ['ONNEPALU', 'ET', 'Piiririik', ['Border State', 'Emil Tode']],
  ['ONNEPALU', 'ET', 'Mandala', []],
  ['ONNEPALU', 'ET', 'Lõpmatus', ['Lopmatus']],
  ['KROSS', 'ET', 'Keisri hull', ['The Czar’s Madman']],
  ['LUTS', 'ET', 'Kevade', ['Spring', 'Toots', 'Arno Tali']],
  ['VILDE', 'ET', 'Pisuhänd', []],
  ['BULGAKOV', 'RU', 'Мастер и Маргарита', ['Master i Margarita', 'Meister ja Margarita']],
  ['DOSTOJEVSKI', 'ET', 'Kuritöö ja karistus', ['Crime and Punishment', 'Преступление и наказание']],
  ['TOLSTOI', 'RU', 'Анна Каренина', ['Anna Karenina']],
  ['ORWELL', 'EN', 'Nineteen Eighty-Four', ['1984', 'Tuhat üheksasada kaheksakümmend neli']],
  ['ORWELL', 'ET', 'Loomade farm', ['Animal Farm']],
  ['AUSTEN', 'EN', 'Pride and Prejudice', ['Uhkus ja eelarvamus']],
  ['CHRISTIE', 'ET', 'Mõrv Idaekspressis', ['Murder on the Orient Express']],
  ['LINDGREN', 'ET', 'Pipi Pikksukk', ['Pippi Långstrump', 'Pippi Longstocking']],
];

const RU_LATIN: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'jo', ж: 'ž', з: 'z', и: 'i', й: 'j', к: 'k', л: 'l', м: 'm', н: 'n',
  о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'h', ц: 'ts', ч: 'tš', ш: 'š', щ: 'štš', ъ: '', ы: 'õ', ь: '',
  э: 'e', ю: 'ju', я: 'ja',
};

/** Estonian transliteration of Cyrillic text (a search tag for Russian titles typed on a Latin keyboard). */
export function transliterate(text: string): string {
  let out = '';
  for (const char of text) {
    const lower = char.toLowerCase();
    const latin = RU_LATIN[lower];
    if (latin === undefined) out += char;
    else out += char === lower ? latin : latin.charAt(0).toUpperCase() + latin.slice(1);
  }
  return out;
}
