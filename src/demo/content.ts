import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  saveBanner,
  saveBlockPage,
  saveContentPage,
  saveMenu,
  type BannerInput,
  type BlockPageInput,
  type ContentPageInput,
  type MenuInput,
} from '../modules/content/index.js';

// The demo shop's content: a home page with product blocks, a menu, a few pages in three languages,
// banners, a category landing page and the current campaign's discount page. Each item is written
// only when its code is not there yet, so an operator's own version is never overwritten.

const DEMO_CAMPAIGN = 'WEB-BOOK-WEEK';

type Three = { et: string; en: string; ru: string };
const three = <T>(make: (language: 'et' | 'en' | 'ru') => T) => ({ et: make('et'), en: make('en'), ru: make('ru') });

const PAGES: Array<{ code: string; slug: string; title: Three; body: Three }> = [
  {
    code: 'DEMO-ABOUT',
    slug: 'meist',
    title: { et: 'Meist', en: 'About us', ru: 'О нас' },
    body: {
      et: '<p>Raamatupood, kus iga raamat leiab lugeja. Meie poed on Tallinnas, Tartus ja Pärnus.</p>',
      en: '<p>A bookshop where every book finds its reader. Our shops are in Tallinn, Tartu and Pärnu.</p>',
      ru: '<p>Книжный магазин, где каждая книга находит читателя. Наши магазины в Таллинне, Тарту и Пярну.</p>',
    },
  },
  {
    code: 'DEMO-DELIVERY',
    slug: 'tarne',
    title: { et: 'Tarne ja tagastus', en: 'Delivery and returns', ru: 'Доставка и возврат' },
    body: {
      et: '<h2>Tarne</h2><p>Pakiautomaati 1–3 tööpäevaga, tasuta alates 35 eurost.</p><h2>Tagastus</h2><p>14 päeva jooksul.</p>',
      en: '<h2>Delivery</h2><p>To a parcel machine in 1–3 working days, free from 35 euros.</p><h2>Returns</h2><p>Within 14 days.</p>',
      ru: '<h2>Доставка</h2><p>В почтовый автомат за 1–3 рабочих дня, бесплатно от 35 евро.</p><h2>Возврат</h2><p>В течение 14 дней.</p>',
    },
  },
  {
    code: 'DEMO-TERMS',
    slug: 'muugitingimused',
    title: { et: 'Müügitingimused', en: 'Terms of sale', ru: 'Условия продажи' },
    body: {
      et: '<p>Hinnad sisaldavad käibemaksu. Tellimus kinnitatakse e-postiga.</p>',
      en: '<p>Prices include VAT. An order is confirmed by e-mail.</p>',
      ru: '<p>Цены включают НДС. Заказ подтверждается по электронной почте.</p>',
    },
  },
];

async function exists(trx: Transaction<Database>, table: 'content_page' | 'block_page' | 'banner' | 'menu', code: string) {
  return (await trx.selectFrom(table).select('id').where('code', '=', code).executeTakeFirst()) !== undefined;
}

export async function writeContentDemo(trx: Transaction<Database>, now: number): Promise<void> {
  const products = await trx
    .selectFrom('product')
    .select('code')
    .where('is_active', '=', true)
    .where('hidden_web', '=', false)
    .orderBy('id')
    .limit(8)
    .execute();
  const campaign = await trx.selectFrom('campaign').select('code').where('code', '=', DEMO_CAMPAIGN).executeTakeFirst();
  // Only around the demo catalogue (its campaign is the mark): an operator's own shop gets no demo pages.
  if (products.length === 0 || campaign === undefined) return;
  const roots = await trx
    .selectFrom('category')
    .select(['code'])
    .where('store_code', '=', 'WEB')
    .where('parent_id', 'is', null)
    .where('is_active', '=', true)
    .orderBy('position')
    .orderBy('id')
    .limit(3)
    .execute();

  for (const page of PAGES) {
    if (await exists(trx, 'content_page', page.code)) continue;
    const input: ContentPageInput = {
      store: 'WEB',
      slug: page.slug,
      translations: three((language) => ({ title: page.title[language], body: page.body[language], seoTitle: page.title[language] })),
    };
    await saveContentPage(trx, page.code, input, now);
  }

  const banners: Array<[string, BannerInput]> = [
    [
      'DEMO-HEADER-SALE',
      {
        store: 'WEB',
        placement: 'HEADER',
        position: 1,
        linkUrl: '/discount-page/raamatunadal',
        translations: three((language) => ({
          title: { et: 'Raamatunädal: kuni -30%', en: 'Book week: up to 30% off', ru: 'Неделя книги: до -30%' }[language],
        })),
      },
    ],
    [
      'DEMO-HEADER-DELIVERY',
      {
        store: 'WEB',
        placement: 'HEADER',
        position: 2,
        linkUrl: '/content-page/tarne',
        translations: three((language) => ({
          title: { et: 'Tasuta tarne alates 35 €', en: 'Free delivery from €35', ru: 'Бесплатная доставка от 35 €' }[language],
        })),
      },
    ],
    [
      'DEMO-HOME-GIFTS',
      {
        store: 'WEB',
        placement: 'HOME',
        imageUrl: 'https://picsum.photos/seed/gifts/1200/300',
        translations: three((language) => ({ title: { et: 'Kingiideed', en: 'Gift ideas', ru: 'Идеи подарков' }[language] })),
      },
    ],
    [
      'DEMO-MENU-NEW',
      {
        store: 'WEB',
        placement: 'MENU',
        linkUrl: '/product-component/newest',
        translations: three((language) => ({ title: { et: 'Uued raamatud', en: 'New books', ru: 'Новые книги' }[language] })),
      },
    ],
  ];
  for (const [code, input] of banners) if (!(await exists(trx, 'banner', code))) await saveBanner(trx, code, input, now);

  if (!(await exists(trx, 'menu', 'DEMO-MENU'))) {
    const menu: MenuInput = {
      store: 'WEB',
      links: [
        { url: '/content-page/meist', labels: { et: 'Meist', en: 'About us', ru: 'О нас' } },
        ...roots.map((root) => ({
          url: `/product-component/top`,
          category: root.code,
          labels: { et: 'Enim müüdud', en: 'Best sellers', ru: 'Бестселлеры' },
        })),
      ],
    };
    await saveMenu(trx, 'DEMO-MENU', menu, now);
  }

  const pages: Array<[string, BlockPageInput]> = [
    [
      'DEMO-HOME',
      {
        store: 'WEB',
        kind: 'MAIN',
        translations: three((language) => ({ title: { et: 'Avaleht', en: 'Home', ru: 'Главная' }[language] })),
        blocks: [
          { type: 'BANNER', placement: 'HOME' },
          {
            type: 'PRODUCT_COMPONENT',
            component: 'newest',
            limit: 8,
            translations: three((language) => ({ title: { et: 'Uued raamatud', en: 'New books', ru: 'Новые книги' }[language] })),
          },
          {
            type: 'PRODUCT_LIST',
            products: products.map((product) => product.code),
            translations: three((language) => ({ title: { et: 'Poe valik', en: 'Our picks', ru: 'Наш выбор' }[language] })),
          },
          { type: 'CAMPAIGN_LIST', campaigns: [campaign.code] },
          {
            type: 'PRODUCT_COMPONENT',
            component: 'top',
            limit: 8,
            translations: three((language) => ({ title: { et: 'Enim müüdud', en: 'Best sellers', ru: 'Бестселлеры' }[language] })),
          },
          { type: 'LINKS', links: [{ url: '/content-page/tarne', labels: { et: 'Tarne', en: 'Delivery', ru: 'Доставка' } }] },
        ],
      },
    ],
  ];
  pages.push([
    'DEMO-BOOK-WEEK',
    {
      store: 'WEB',
      kind: 'DISCOUNT',
      slug: 'raamatunadal',
      campaign: campaign.code,
      translations: three((language) => ({ title: { et: 'Raamatunädal', en: 'Book week', ru: 'Неделя книги' }[language] })),
      blocks: [
        {
          type: 'RICH_TEXT',
          translations: three((language) => ({
            body: { et: '<p>Sajad raamatud soodsamalt.</p>', en: '<p>Hundreds of books for less.</p>', ru: '<p>Сотни книг дешевле.</p>' }[
              language
            ],
          })),
        },
      ],
    },
  ]);
  if (roots[0]) {
    pages.push([
      'DEMO-CATEGORY',
      {
        store: 'WEB',
        kind: 'CATEGORY',
        category: roots[0].code,
        translations: three((language) => ({ title: { et: 'Valitud lood', en: 'Selected stories', ru: 'Избранное' }[language] })),
        blocks: [{ type: 'PRODUCT_COMPONENT', component: 'top', category: roots[0].code, limit: 8 }],
      },
    ]);
  }
  for (const [code, input] of pages) if (!(await exists(trx, 'block_page', code))) await saveBlockPage(trx, code, input, now);
}
