import type { CatalogueSection } from '../catalogue.js';
import type { LoadOptions } from './http-load.js';
import { fmt, httpPasses, httpTable } from './report.js';

export function renderCatalogueSection(
  section: CatalogueSection,
  run: { date: Date; command: string; pinned: boolean; load: LoadOptions; machine: string },
): string {
  const { options, dataset, categorySizes, load } = { ...section, load: run.load };
  return `## Catalogue: product details and category lists on ${fmt(dataset.products)} products

- Date: ${run.date.toISOString()}
- Machine: ${run.machine}
- Command: \`${run.command}\`

${load.connections} connections, pipelining ${load.pipelining}; per target ${load.warmupSeconds} s warm-up (discarded), then ${load.durationSeconds} s measured
in ${load.sliceSeconds} s slices that take turns between the targets (columns as in the core section).

${httpTable(section.ceiling, section.rows)}

### Method

- The catalogue is \`bench/catalogue-dataset.ts\` at ${fmt(dataset.products)} products (the demo bookstore's generator: categories
  of thousands of products, authors, shops with stock, campaigns, orders), written in ${fmt(dataset.seconds)} s into a fresh SQLite file;
  the service is the compiled build on it (\`dist/main.js serve\`), \`LOG_LEVEL=warn\`, default settings otherwise
  (\`CATALOGUE_CACHE_TTL_MS=30000\`, \`CATALOGUE_LIST_CACHE_TTL_MS=60000\`), as a guest of WEB.
- Every request draws its path at random from the row's set, so the answers are not one cached page:
  the hot set is every n-th of the products a guest can see (${fmt(options.hotProducts)}); the category rows use the ${options.categories} largest
  WEB categories of 1,000 to 10,000 products (${fmt(categorySizes.min)} to ${fmt(categorySizes.max)} visible products in their subtrees, so page 50 at
  20 per page is a full page). A root category of tens of thousands of products costs a few hundred ms on a cache miss
  (count and sort); its order and total are then kept for \`CATALOGUE_LIST_CACHE_TTL_MS\` (60 s).
  The cold row reads any visible product, so the per-process caches rarely hold it: it shows the cost of a miss
  (about ten indexed reads and the JSON of a full product page).
- The "caches off" columns are the same requests in the same run to a second service on the same file with
  \`CATALOGUE_CACHE_TTL_MS=0\` and \`CATALOGUE_LIST_CACHE_TTL_MS=0\` (issue 19: a long tail of shoppers misses the caches);
  they are information, the verdict is the default settings'.
- The ceiling and the service each run in their own process${run.pinned ? ', pinned to CPU 1 (the load generator to CPU 0)' : ''}; all traffic is loopback.
- Result: ${section.rows.every((row) => httpPasses(row, section.ceiling.result)) ? 'every target met' : 'a target was missed (see FAIL above)'}.
`;
}
