import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { applyContentLine } from '../modules/blog/index.js';

// The demo's blog, news, shop schedules and redirects, written through the same kinds as the
// imports (upsert by code), so a second run changes nothing. Posts and news in three languages, a
// draft to preview, schedules with the coming Christmas holidays.

const DAY = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const POSTS = [
  ['et', 'sugise-lugemisnimekiri', 'Sügise lugemisnimekiri', 'Kümme raamatut pikkadeks õhtuteks.', 'lugemine', ['sügis', 'soovitused']],
  [
    'et',
    'kuidas-valida-lasteraamatut',
    'Kuidas valida lasteraamatut',
    'Vanusele sobiv, ilus ja jutustav.',
    'lapsed',
    ['lapsed', 'soovitused'],
  ],
  ['en', 'autumn-reading-list', 'An autumn reading list', 'Ten books for long evenings.', 'lugemine', ['autumn', 'recommendations']],
  ['en', 'meet-the-author-evenings', 'Meet-the-author evenings', 'Authors visit our shops this winter.', 'uritused', ['events']],
  ['ru', 'osennij-spisok-chtenija', 'Осенний список чтения', 'Десять книг для долгих вечеров.', 'lugemine', ['осень']],
  ['ru', 'kak-vybrat-detskuju-knigu', 'Как выбрать детскую книгу', 'По возрасту, красиво и интересно.', 'lapsed', ['дети']],
] as const;

export async function writeBlogDemo(trx: Transaction<Database>, now: number): Promise<void> {
  const categories: Array<[string, string, Record<string, string>]> = [
    ['lugemine', 'BLOG-READING', { et: 'Lugemissoovitused', en: 'Reading tips', ru: 'Что почитать' }],
    ['lapsed', 'BLOG-KIDS', { et: 'Lastele', en: 'For children', ru: 'Детям' }],
    ['uritused', 'BLOG-EVENTS', { et: 'Üritused', en: 'Events', ru: 'События' }],
  ];
  for (const [index, [slug, code, names]] of categories.entries()) {
    await applyContentLine(trx, 'blog-categories', { code, store: 'WEB', slug, names, position: index + 1 }, now);
  }
  const categoryCode = Object.fromEntries(categories.map(([slug, code]) => [slug, code]));
  for (const [index, [language, slug, title, summary, category, tags]] of POSTS.entries()) {
    await applyContentLine(
      trx,
      'blog-posts',
      {
        code: `DEMO-POST-${index + 1}`,
        store: 'WEB',
        language,
        slug,
        title,
        summary,
        body: `<h2>${title}</h2><p>${summary}</p><p><a href="/blog">Blog</a></p>`,
        author: 'Demo',
        category: categoryCode[category],
        tags: [...tags],
        publishedAt: date(now - (index + 1) * 7 * DAY),
      },
      now,
    );
  }
  // A draft, for ?preview=1 with an operator key.
  await applyContentLine(
    trx,
    'blog-posts',
    {
      code: 'DEMO-POST-DRAFT',
      store: 'WEB',
      language: 'et',
      slug: 'mustand',
      title: 'Mustand',
      body: '<p>Pooleli.</p>',
      active: false,
      publishedAt: date(now),
    },
    now,
  );
  const news = [
    ['uus-pood-tartus', { et: 'Uus pood Tartus', en: 'A new shop in Tartu', ru: 'Новый магазин в Тарту' }],
    ['joulude-lahtiolekuajad', { et: 'Jõulude lahtiolekuajad', en: 'Opening hours at Christmas', ru: 'Часы работы на Рождество' }],
    ['tasuta-tarne', { et: 'Tasuta tarne üle 30 €', en: 'Free delivery over €30', ru: 'Бесплатная доставка от 30 €' }],
  ] as const;
  for (const [index, [slug, titles]] of news.entries()) {
    const translations = Object.fromEntries(
      Object.entries(titles).map(([language, title]) => [language, { title, body: `<p>${title}.</p>` }]),
    );
    await applyContentLine(
      trx,
      'news',
      { code: `DEMO-NEWS-${index + 1}`, store: 'WEB', slug, translations, publishedAt: date(now - index * 3 * DAY) },
      now,
    );
  }
  const year = new Date(now).getUTCFullYear();
  const weekly = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '10:00', closes: weekday >= 6 ? '20:00' : '21:00' }));
  const exceptions = [
    { date: `${year}-12-24`, opens: '10:00', closes: '15:00', names: { et: 'Jõululaupäev', en: 'Christmas Eve', ru: 'Сочельник' } },
    { date: `${year}-12-25`, closed: true, names: { et: 'Esimene jõulupüha', en: 'Christmas Day', ru: 'Рождество' } },
    { date: `${year + 1}-01-01`, closed: true, names: { et: 'Uusaasta', en: "New Year's Day", ru: 'Новый год' } },
  ];
  for (const shop of ['TLN-VIRU', 'TRT-KAUBAMAJA']) {
    // Only where the demo chain (not an operator's import) has the shop.
    if (await trx.selectFrom('shop').select('id').where('code', '=', shop).executeTakeFirst()) {
      await applyContentLine(trx, 'shop-schedules', { shop, weekly, exceptions }, now);
    }
  }
  await applyContentLine(
    trx,
    'redirects',
    { code: 'DEMO-OLD-BLOG', store: 'WEB', path: '/uudised/blogi.php', target: '/blog', status: 301 },
    now,
  );
  await applyContentLine(
    trx,
    'redirects',
    { code: 'DEMO-SALE', store: 'WEB', path: '/kampaania', target: '/news/tasuta-tarne', status: 302 },
    now,
  );
}
