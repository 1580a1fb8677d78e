// Writes a synthetic back-office feed for measuring the import (not a test):
//   npx tsx test/import/perf/generate-feed.ts <dir> [products=200000]
// then import publishers, persons, series, categories, products from <dir> in that order.
import { createWriteStream } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { ean13 } from '../helpers.js';

const [dir = 'feed', countText = '200000'] = process.argv.slice(2);
const count = Number(countText);
mkdirSync(dir, { recursive: true });

async function write(name: string, n: number, line: (i: number) => object): Promise<void> {
  const out = createWriteStream(join(dir, `${name}.ndjson`));
  for (let i = 0; i < n; i += 1) {
    if (!out.write(`${JSON.stringify(line(i))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const PUBLISHERS = 2000;
const PERSONS = 20_000;
const SERIES = 500;
const CATEGORIES = 200;

await write('publishers', PUBLISHERS, (i) => ({ code: `PUB${i}`, name: `Kirjastus ${i}` }));
await write('persons', PERSONS, (i) => ({ code: `PER${i}`, name: `Autor ${i}` }));
await write('series', SERIES, (i) => ({ code: `SER${i}`, name: `Sari ${i}`, publisher: `PUB${i % PUBLISHERS}` }));
await write('categories', CATEGORIES, (i) => ({
  code: `CAT${i}`,
  store: 'WEB',
  parent: i < 20 ? null : `CAT${i % 20}`,
  position: i,
  names: { et: `Kategooria ${i}`, en: `Category ${i}` },
}));
await write('products', count, (i) => {
  const ebook = i % 5 === 4;
  return {
    code: `PRD${i}`,
    ean: ean13(i),
    type: ebook ? 'EBOOK' : 'BOOK',
    name: `Raamat number ${i}`,
    altNames: [`Pealkiri ${i}`],
    description: `Kirjeldus ${i}. `.repeat(10),
    language: 'ET',
    binding: ebook ? 'EPUB' : 'PAPERBACK',
    year: 1990 + (i % 35),
    pages: 100 + (i % 400),
    publisher: `PUB${i % PUBLISHERS}`,
    series: i % 10 === 0 ? `SER${i % SERIES}` : null,
    // An e-book names its physical edition, which is later in the file: a forward reference.
    physicalBook: ebook && i + 1 < count ? `PRD${i + 1}` : null,
    persons: [
      { code: `PER${i % PERSONS}`, role: 'AUTHOR' },
      ...(i % 3 === 0 ? [{ code: `PER${(i * 7) % PERSONS}`, role: 'TRANSLATOR' }] : []),
    ],
    categories: [`CAT${i % CATEGORIES}`],
    stores: i % 4 === 0 ? ['WEB', 'WEB2'] : ['WEB'],
    related: i > 2 ? [`PRD${i - 1}`, `PRD${i - 2}`] : [],
    assets: [{ kind: 'IMAGE', url: `https://cdn.example.ee/p/${i}.jpg`, width: 400, height: 600 }],
    shopPrice: (500 + (i % 3000)) / 100,
    originalPrice: i % 2 === 0 ? 40 : null,
    vatRate: 9,
    availability: 'AVAILABLE',
    deliveryTime: ebook ? 'INSTANT_DOWNLOAD' : 'DAYS_1_7',
    releasedAt: `20${String(10 + (i % 15))}-0${1 + (i % 9)}-15`,
  };
});
process.stdout.write(`wrote ${dir}: ${count} products\n`);
