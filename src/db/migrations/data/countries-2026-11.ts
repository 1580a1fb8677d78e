// Countries offered for addresses: the European Union and its neighbours. Estonia, Latvia,
// Lithuania and Finland come first (position 1 to 4), the rest by name.
export interface CountrySeed {
  code: string;
  position: number;
  names: { et: string; en: string; ru: string };
}

const pinned: Record<string, number> = { EE: 1, LV: 2, LT: 3, FI: 4 };

const list: Array<[string, string, string, string]> = [
  ['AT', 'Austria', 'Austria', 'Австрия'],
  ['BE', 'Belgia', 'Belgium', 'Бельгия'],
  ['BG', 'Bulgaaria', 'Bulgaria', 'Болгария'],
  ['HR', 'Horvaatia', 'Croatia', 'Хорватия'],
  ['CY', 'Küpros', 'Cyprus', 'Кипр'],
  ['CZ', 'Tšehhi', 'Czechia', 'Чехия'],
  ['DK', 'Taani', 'Denmark', 'Дания'],
  ['EE', 'Eesti', 'Estonia', 'Эстония'],
  ['FI', 'Soome', 'Finland', 'Финляндия'],
  ['FR', 'Prantsusmaa', 'France', 'Франция'],
  ['DE', 'Saksamaa', 'Germany', 'Германия'],
  ['GR', 'Kreeka', 'Greece', 'Греция'],
  ['HU', 'Ungari', 'Hungary', 'Венгрия'],
  ['IE', 'Iirimaa', 'Ireland', 'Ирландия'],
  ['IT', 'Itaalia', 'Italy', 'Италия'],
  ['LV', 'Läti', 'Latvia', 'Латвия'],
  ['LT', 'Leedu', 'Lithuania', 'Литва'],
  ['LU', 'Luksemburg', 'Luxembourg', 'Люксембург'],
  ['MT', 'Malta', 'Malta', 'Мальта'],
  ['NL', 'Holland', 'Netherlands', 'Нидерланды'],
  ['PL', 'Poola', 'Poland', 'Польша'],
  ['PT', 'Portugal', 'Portugal', 'Португалия'],
  ['RO', 'Rumeenia', 'Romania', 'Румыния'],
  ['SK', 'Slovakkia', 'Slovakia', 'Словакия'],
  ['SI', 'Sloveenia', 'Slovenia', 'Словения'],
  ['ES', 'Hispaania', 'Spain', 'Испания'],
  ['SE', 'Rootsi', 'Sweden', 'Швеция'],
  ['AL', 'Albaania', 'Albania', 'Албания'],
  ['AD', 'Andorra', 'Andorra', 'Андорра'],
  ['BA', 'Bosnia ja Hertsegoviina', 'Bosnia and Herzegovina', 'Босния и Герцеговина'],
  ['GE', 'Gruusia', 'Georgia', 'Грузия'],
  ['IS', 'Island', 'Iceland', 'Исландия'],
  ['LI', 'Liechtenstein', 'Liechtenstein', 'Лихтенштейн'],
  ['MD', 'Moldova', 'Moldova', 'Молдова'],
  ['MC', 'Monaco', 'Monaco', 'Монако'],
  ['ME', 'Montenegro', 'Montenegro', 'Черногория'],
  ['MK', 'Põhja-Makedoonia', 'North Macedonia', 'Северная Македония'],
  ['NO', 'Norra', 'Norway', 'Норвегия'],
  ['SM', 'San Marino', 'San Marino', 'Сан-Марино'],
  ['RS', 'Serbia', 'Serbia', 'Сербия'],
  ['CH', 'Šveits', 'Switzerland', 'Швейцария'],
  ['TR', 'Türgi', 'Türkiye', 'Турция'],
  ['UA', 'Ukraina', 'Ukraine', 'Украина'],
  ['GB', 'Suurbritannia', 'United Kingdom', 'Великобритания'],
];

export const COUNTRIES: CountrySeed[] = list.map(([code, et, en, ru]) => ({
  code,
  position: pinned[code] ?? 100,
  names: { et, en, ru },
}));
