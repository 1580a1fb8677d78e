import type { Random } from './random.js';

// Names of the products that are not books. The product name is Estonian, as the back office
// keeps it; English and Russian words go into the alternative names so search finds them.

export interface Merchandise {
  name: string;
  altNames: string[];
  priceCents: number;
  /** Width, height, depth (mm) and weight (g). */
  size: readonly [number, number, number, number];
}

const WRITING = [
  ['Pastapliiats', 'ballpoint pen', 'шариковая ручка', 149],
  ['Geelpliiats', 'gel pen', 'гелевая ручка', 249],
  ['Harilik pliiats HB', 'pencil', 'карандаш', 79],
  ['Täitesulepea', 'fountain pen', 'перьевая ручка', 2490],
  ['Markerite komplekt', 'marker set', 'набор маркеров', 699],
  ['Värvipliiatsid 24 värvi', 'coloured pencils', 'цветные карандаши', 899],
  ['Tekstimarker', 'highlighter', 'текстовыделитель', 189],
] as const;
const PAPER = [
  ['Märkmik A5, ruuduline', 'notebook A5 squared', 'блокнот A5 в клетку', 499],
  ['Märkmik A5, jooneline', 'notebook A5 lined', 'блокнот A5 в линейку', 499],
  ['Päevik 2027', 'diary 2027', 'ежедневник 2027', 1299],
  ['Kleepmärkmed 76×76', 'sticky notes', 'стикеры', 249],
  ['Joonistusplokk A4', 'sketch pad', 'альбом для рисования', 399],
  ['Vihik, 24 lehte', 'exercise book', 'тетрадь', 59],
  ['Kaustik A4', 'ring binder', 'папка-регистратор', 349],
] as const;
const COLOURS = ['sinine', 'must', 'punane', 'roheline', 'lilla', 'kollane'];
const WRITING_BRANDS = ['Stabilo', 'Pilot', 'Faber-Castell', 'Schneider', 'Parker', 'Koh-i-Noor'];

const TECH = [
  ['E-luger', 'e-reader', 'электронная книга', 12900],
  ['Kõrvaklapid', 'headphones', 'наушники', 5900],
  ['Lugemislamp', 'reading light', 'лампа для чтения', 1990],
  ['Akupank 10000 mAh', 'power bank', 'внешний аккумулятор', 2990],
  ['E-lugeri ümbris', 'e-reader cover', 'чехол для электронной книги', 2490],
  ['Bluetooth-kõlar', 'bluetooth speaker', 'портативная колонка', 4990],
] as const;
const TECH_BRANDS = ['PocketBook', 'Kobo', 'Tolino', 'JBL', 'Sony', 'Xiaomi', 'Anker'];

const GAMES = [
  'Kuldne kaart',
  'Saarte kuningas',
  'Rabamatk',
  'Hansalinn',
  'Tähejaht',
  'Metsa sõbrad',
  'Sõnameister',
  'Tallinna turg',
  'Kapten Kärbes',
  'Mõisa saladus',
  'Rongireis',
  'Kolm karu',
];
const GAME_KINDS = [
  ['Lauamäng', 'board game', 'настольная игра', 2990],
  ['Kaardimäng', 'card game', 'карточная игра', 1490],
  ['Pusle 1000 tk', 'jigsaw puzzle', 'пазл', 1990],
] as const;

export function officeItem(random: Random, paper: boolean): Merchandise {
  if (paper) {
    const [name, en, ru, price] = random.pick(PAPER);
    return { name, altNames: [en, ru], priceCents: price + random.int(0, 4) * 50, size: [148, 210, 12, 220] };
  }
  const [name, en, ru, price] = random.pick(WRITING);
  const brand = random.pick(WRITING_BRANDS);
  return { name: `${name} ${brand}, ${random.pick(COLOURS)}`, altNames: [en, ru, brand], priceCents: price, size: [15, 150, 15, 20] };
}

export function techItem(random: Random): Merchandise {
  const [name, en, ru, price] = random.pick(TECH);
  const brand = random.pick(TECH_BRANDS);
  const model = `${random.pick(['Verse', 'Clara', 'Era', 'Touch', 'Lux', 'Go', 'Pro'])} ${random.int(2, 9)}`;
  return {
    name: `${name} ${brand} ${model}`,
    altNames: [en, ru, brand],
    priceCents: price + random.int(0, 6) * 1000,
    size: [120, 170, 10, 190],
  };
}

export function boardGame(random: Random): Merchandise {
  const [kind, en, ru, price] = random.pick(GAME_KINDS);
  return {
    name: `${kind} „${random.pick(GAMES)}“`,
    altNames: [en, ru],
    priceCents: price + random.int(0, 5) * 500,
    size: [270, 270, 70, 900],
  };
}

/** The face values of the gift cards (euros): physical ones in the shops, virtual ones by mail. */
export const GIFT_CARD_VALUES = [10, 20, 25, 50, 100] as const;
