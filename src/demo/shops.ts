import type { Insertable } from 'kysely';
import type { ShopNameTable, ShopTable } from '../modules/catalogue/index.js';

// The demo chain: a web warehouse and shops in Estonian towns. Only the warehouse and the two
// biggest shops sell their stock on the web; one shop is closed (inactive) and keeps some stock,
// which must not count as web stock. Shoppers do not see the warehouse as a shop (not listed).

interface ShopDef {
  code: string;
  city: string;
  address: string;
  et: string;
  en: string;
  ru: string;
  webStock: boolean;
  active: boolean;
  hours: 'mall' | 'centre' | 'small' | 'warehouse';
}

const SHOPS: ShopDef[] = [
  {
    code: 'LADU',
    city: 'Tallinn',
    address: 'Betooni 9, 11415 Tallinn',
    et: 'Veebipood (ladu)',
    en: 'Web shop warehouse',
    ru: 'Интернет-магазин (склад)',
    webStock: true,
    active: true,
    hours: 'warehouse',
  },
  {
    code: 'TLN-VIRU',
    city: 'Tallinn',
    address: 'Viru väljak 4, 10111 Tallinn',
    et: 'Raamatupood Viru Keskuses',
    en: 'Bookshop in Viru Centre',
    ru: 'Книжный магазин в Viru Keskus',
    webStock: true,
    active: true,
    hours: 'mall',
  },
  {
    code: 'TLN-SOLARIS',
    city: 'Tallinn',
    address: 'Estonia pst 9, 10143 Tallinn',
    et: 'Raamatupood Solarises',
    en: 'Bookshop in Solaris',
    ru: 'Книжный магазин в Solaris',
    webStock: false,
    active: true,
    hours: 'mall',
  },
  {
    code: 'TLN-ULEMISTE',
    city: 'Tallinn',
    address: 'Suur-Sõjamäe 4, 11415 Tallinn',
    et: 'Raamatupood Ülemiste Keskuses',
    en: 'Bookshop in Ülemiste Centre',
    ru: 'Книжный магазин в Ülemiste',
    webStock: false,
    active: true,
    hours: 'mall',
  },
  {
    code: 'TRT-KAUBAMAJA',
    city: 'Tartu',
    address: 'Riia 1, 51013 Tartu',
    et: 'Raamatupood Tartu Kaubamajas',
    en: 'Bookshop in Tartu Kaubamaja',
    ru: 'Книжный магазин в Tartu Kaubamaja',
    webStock: true,
    active: true,
    hours: 'mall',
  },
  {
    code: 'TRT-RUUTLI',
    city: 'Tartu',
    address: 'Rüütli 11, 51007 Tartu',
    et: 'Raamatupood Rüütli tänaval',
    en: 'Bookshop on Rüütli Street',
    ru: 'Книжный магазин на улице Рюйтли',
    webStock: false,
    active: true,
    hours: 'centre',
  },
  {
    code: 'PRN',
    city: 'Pärnu',
    address: 'Aida 7, 80011 Pärnu',
    et: 'Pärnu raamatupood',
    en: 'Pärnu bookshop',
    ru: 'Книжный магазин в Пярну',
    webStock: false,
    active: true,
    hours: 'mall',
  },
  {
    code: 'NRV',
    city: 'Narva',
    address: 'Tallinna mnt 19c, 20303 Narva',
    et: 'Narva raamatupood',
    en: 'Narva bookshop',
    ru: 'Книжный магазин в Нарве',
    webStock: false,
    active: true,
    hours: 'mall',
  },
  {
    code: 'VLJ',
    city: 'Viljandi',
    address: 'Tallinna 24, 71020 Viljandi',
    et: 'Viljandi raamatupood',
    en: 'Viljandi bookshop',
    ru: 'Книжный магазин в Вильянди',
    webStock: false,
    active: true,
    hours: 'small',
  },
  {
    code: 'RKV',
    city: 'Rakvere',
    address: 'Laada 16, 44310 Rakvere',
    et: 'Rakvere raamatupood',
    en: 'Rakvere bookshop',
    ru: 'Книжный магазин в Раквере',
    webStock: false,
    active: true,
    hours: 'small',
  },
  {
    code: 'KRS',
    city: 'Kuressaare',
    address: 'Tallinna 88, 93815 Kuressaare',
    et: 'Kuressaare raamatupood',
    en: 'Kuressaare bookshop',
    ru: 'Книжный магазин в Курессааре',
    webStock: false,
    active: true,
    hours: 'small',
  },
  {
    code: 'HPS',
    city: 'Haapsalu',
    address: 'Posti 37, 90504 Haapsalu',
    et: 'Haapsalu raamatupood',
    en: 'Haapsalu bookshop',
    ru: 'Книжный магазин в Хаапсалу',
    webStock: false,
    active: true,
    hours: 'small',
  },
  {
    code: 'JHV',
    city: 'Jõhvi',
    address: 'Keskväljak 6, 41531 Jõhvi',
    et: 'Jõhvi raamatupood',
    en: 'Jõhvi bookshop',
    ru: 'Книжный магазин в Йыхви',
    webStock: false,
    active: true,
    hours: 'mall',
  },
  {
    code: 'VLG',
    city: 'Valga',
    address: 'Riia 10, 68203 Valga',
    et: 'Valga raamatupood (suletud)',
    en: 'Valga bookshop (closed)',
    ru: 'Книжный магазин в Валга (закрыт)',
    webStock: true,
    active: false,
    hours: 'small',
  },
];

const HOURS = {
  mall: { et: 'E–P 10–21', en: 'Mon–Sun 10–21', ru: 'Пн–Вс 10–21' },
  centre: { et: 'E–R 10–19, L 10–16, P suletud', en: 'Mon–Fri 10–19, Sat 10–16, Sun closed', ru: 'Пн–Пт 10–19, Сб 10–16, Вс закрыто' },
  small: { et: 'E–R 10–18, L 10–15, P suletud', en: 'Mon–Fri 10–18, Sat 10–15, Sun closed', ru: 'Пн–Пт 10–18, Сб 10–15, Вс закрыто' },
  warehouse: { et: 'Ainult e-poe tellimused', en: 'Web orders only', ru: 'Только заказы интернет-магазина' },
} as const;

export interface DemoShop {
  id: number;
  code: string;
  city: string;
  /** Counts towards product.web_stock: sells on the web and is open. */
  countsForWeb: boolean;
  active: boolean;
  /** Shown to shoppers as a shop (the warehouse is not). */
  listed: boolean;
  /** A share of the chain's stock: the warehouse and big shops hold more. */
  weight: number;
}

export interface ShopRows {
  shops: Insertable<ShopTable>[];
  names: Insertable<ShopNameTable>[];
  list: DemoShop[];
}

export function shopRows(firstId: number, now: number): ShopRows {
  const out: ShopRows = { shops: [], names: [], list: [] };
  SHOPS.forEach((shop, index) => {
    const id = firstId + index;
    const slug = shop.code.toLowerCase();
    const listed = shop.hours !== 'warehouse';
    out.shops.push({
      id,
      code: shop.code,
      city: shop.city,
      address: shop.address,
      phone: `+372 6${String(100000 + index * 7919).slice(-6)}`,
      email: `${slug}@raamatupood.example`,
      web_stock: shop.webStock,
      is_active: shop.active,
      is_listed: listed,
      position: index + 1,
      created_at: now,
      updated_at: now,
    });
    for (const language of ['et', 'en', 'ru'] as const) {
      out.names.push({ shop_id: id, language, name: shop[language], opening_hours: HOURS[shop.hours][language] });
    }
    out.list.push({
      id,
      code: shop.code,
      city: shop.city,
      countsForWeb: shop.webStock && shop.active,
      active: shop.active,
      listed,
      weight: shop.hours === 'warehouse' ? 5 : shop.hours === 'mall' ? 2 : 1,
    });
  });
  return out;
}
