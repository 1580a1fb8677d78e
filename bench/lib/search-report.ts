import { MISS_CONNECTIONS, type SearchSection } from '../search.js';
import type { LoadOptions } from './http-load.js';
import { fmt, httpPasses, httpTable, type HttpRow } from './report.js';

export function searchPasses(section: SearchSection): boolean {
  return section.runs.every((run) => run.rows.every((row) => httpPasses(row, run.ceiling.result)));
}

/**
 * Requests per CPU-second of the server against the ceiling's: what the service would reach with
 * a CPU of its own. Steadier than req/s when other work shares the machine (information).
 */
function cpuLine(ceiling: HttpRow, rows: HttpRow[], labels: string[]): string {
  const base = ceiling.result.serverCpuMicros;
  if (base === undefined) return '';
  const parts = rows.map((row, index) => {
    const cpu = row.result.serverCpuMicros;
    return `${labels[index] ?? row.name} ${cpu === undefined ? '—' : `${fmt((base / cpu) * 100, 1)} %`}`;
  });
  return `Requests per CPU-second of the service against the ceiling's (steadier than req/s when other work shares the machine; information): ${parts.join(', ')}.`;
}

function missTable(rows: HttpRow[]): string {
  return [
    '| Requests | req/s (avg) | p99 (ms) | server CPU µs/req | requests | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ({ name, result: r }) =>
        `| ${name} | ${fmt(r.requestsPerSecond)} | ${fmt(r.p99Ms, 2, 0)} | ${r.serverCpuMicros === undefined ? '—' : fmt(r.serverCpuMicros, 1)} | ${fmt(r.total)} | ${r.non2xx} | ${r.errors} |`,
    ),
  ].join('\n');
}

export function renderSearchSection(
  section: SearchSection,
  run: { date: Date; command: string; pinned: boolean; load: LoadOptions; machine: string },
): string {
  const { load } = run;
  const tables = section.runs.map((engine) => {
    const datasetLine = engine.dataset.reused
      ? 'the database of the catalogue part of this run (the same dataset), reused'
      : `generated for this part in ${fmt(engine.dataset.seconds)} s (rows and search index)`;
    return `### ${engine.engine}

Catalogue: ${fmt(engine.dataset.products)} products, ${datasetLine}.

${httpTable(engine.ceiling, engine.rows)}

${cpuLine(engine.ceiling, engine.rows, engine.labels)}

The "caches off" columns: the same rows at the same load on a second service process with the per-process caches off
(\`CATALOGUE_CACHE_TTL_MS=0\`, \`CATALOGUE_LIST_CACHE_TTL_MS=0\`), measured in a pass of their own after the cached rows (information).

Every request a miss (the same second service process, no per-process cache at all), ${MISS_CONNECTIONS} connections,
measured after the rows above:

${missTable(engine.misses)}
`;
  });
  const skipped = section.skipped.map((reason) => `- Not run: ${reason}.`).join('\n');
  return `## Search: product search, autocomplete and facets on ${fmt(section.products)} products

- Date: ${run.date.toISOString()}
- Machine: ${run.machine}
- Command: \`${run.command}\`

${load.connections} connections, pipelining ${load.pipelining}; per target ${load.warmupSeconds} s warm-up (discarded), then ${load.durationSeconds} s measured
in ${load.sliceSeconds} s slices that take turns between the targets (columns as in the core section). Each engine has its own
ceiling row, measured in the same run as its rows; ratios are only taken within one table.

${tables.join('\n')}
${skipped}

### Method

- The catalogue is \`bench/catalogue-dataset.ts\` (the demo bookstore's generator) with its search index folded; the service is the
  compiled build (\`dist/main.js serve\`), \`LOG_LEVEL=warn\`, default settings otherwise (\`CATALOGUE_CACHE_TTL_MS=5000\`;
  autocomplete keeps suggestions 12 times as long), as a guest of WEB. The miss tables show what an answer costs when nothing is
  cached (information only); a miss of the main rows costs the same, once per path and cache period (about a minute for suggestions).
- Every request draws its path at random from the row's set: the common words are the ${section.runs[0]?.targets.common.length ?? 0} most frequent title words
  (of four letters or more) among the products a guest of WEB sees; the rare words are spread over the words (titles and persons) of ten products or fewer;
  the EANs are spread over the visible products; the prefixes are the first 2 to 5 letters of common words and of persons' surnames.
  A prefix query and a full word are searched the same way (the last word is always a prefix while it is being typed).
- The two-filter row adds \`type=BOOK&priceMax=20\` to the common words: the price filter is on the guest's price (store discount and
  campaigns included), computed in SQL.
- The ceiling and the services each run in their own process${run.pinned ? ', pinned to CPU 1 (the load generator to CPU 0); a PostgreSQL server is not pinned and shares the machine' : ''}; all traffic is loopback.
- Result: ${searchPasses(section) ? 'every target met' : 'a target was missed (see FAIL above)'}.
`;
}
