// The checkout benchmark's section of bench/RESULTS.md (bench/checkout.ts measures it).

/** Checkouts/s to reach, as a share of the ceiling's requests/s in the same run (SQLite). */
export const CHECKOUT_TARGET = 0.01;

export interface EngineResult {
  label: string;
  ceiling: { rate: number; sliceRange: [number, number] };
  checkout: {
    rate: number;
    sliceRange: [number, number];
    p50: number;
    p99: number;
    done: number;
    failed: number;
    firstError: string | undefined;
    cpuMsPer: number;
  };
  purchase: {
    rate: number;
    buyerP50: number;
    buyerP99: number;
    attempted: number;
    processed: number;
    failed: number;
    firstError: string | undefined;
    handedOff: number;
  };
  worker: { rate: number; orders: number; paid: number; failed: number; firstError: string | undefined };
}

export interface RunInfo {
  date: string;
  machine: string;
  load: string;
  pinned: boolean;
  command: string;
  options: { products: number; buyers: number; seconds: number; warmup: number; slice: number; purchases: number; drain: number };
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';

function engineTable(result: EngineResult, judged: boolean): string[] {
  const { ceiling, checkout, purchase, worker } = result;
  const ratio = checkout.rate / ceiling.rate;
  const pass = ratio >= CHECKOUT_TARGET && checkout.failed === 0;
  const lines = [
    `### ${result.label}${judged ? '' : ' (info)'}`,
    '',
    '| Scenario | per second | slice range (min–max) | p50 (ms) | p99 (ms) | done | failed | ratio to ceiling | target | result |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ceiling: raw \`node:http\`, small JSON (requests) | ${fmt(ceiling.rate)} | ${fmt(ceiling.sliceRange[0])}–${fmt(ceiling.sliceRange[1])} | — | — | — | — | 100 % | — | reference |`,
    `| \`POST /checkout\` of a 5-line guest basket (checkouts; server CPU ${fmt(checkout.cpuMsPer, 2)} ms each) | ${fmt(checkout.rate, 1)} | ${fmt(checkout.sliceRange[0], 1)}–${fmt(checkout.sliceRange[1], 1)} | ${fmt(checkout.p50, 1)} | ${fmt(checkout.p99, 1)} | ${fmt(checkout.done)} | ${checkout.failed} | ${(ratio * 100).toFixed(2)} % | ${judged ? `≥ ${CHECKOUT_TARGET * 100} %` : '—'} | ${judged ? (pass ? 'pass' : 'FAIL') : 'info'} |`,
    `| full purchase, first checkout to last order COMPLETED (purchases; p50/p99: the buyer's 4 requests) | ${fmt(purchase.rate, 1)} | — | ${fmt(purchase.buyerP50, 1)} | ${fmt(purchase.buyerP99, 1)} | ${fmt(purchase.processed)} of ${fmt(purchase.attempted)} | ${purchase.failed} | ${((purchase.rate / ceiling.rate) * 100).toFixed(2)} % | — | info |`,
    `| one worker draining paid orders (orders processed: PROCESSING → COMPLETED with mail and hand-off) | ${fmt(worker.rate, 1)} | — | — | — | ${fmt(worker.orders)} of ${fmt(worker.paid)} | ${worker.failed} | — | — | info |`,
    '',
    `Back office hand-offs received: ${fmt(purchase.handedOff)}.`,
  ];
  for (const [what, error] of [
    ['checkout', checkout.firstError],
    ['purchase', purchase.firstError],
    ['worker phase', worker.firstError],
  ] as const) {
    if (error !== undefined) lines.push('', `First ${what} failure: \`${error.replace(/`/g, "'").slice(0, 200)}\``);
  }
  return lines;
}

/** The target's verdict in one sentence, for the top of the section. */
function verdict(results: EngineResult[]): string {
  const sqlite = results.find((r) => r.label === 'SQLite');
  if (!sqlite) return 'SQLite was not measured.';
  const ratio = sqlite.checkout.rate / sqlite.ceiling.rate;
  const met = ratio >= CHECKOUT_TARGET && sqlite.checkout.failed === 0;
  return `**Target ${met ? 'met' : 'NOT met'}**: on SQLite ${fmt(sqlite.checkout.rate, 1)} checkouts/s are ${(ratio * 100).toFixed(2)} % of the ceiling's ${fmt(sqlite.ceiling.rate)} requests/s (target ≥ ${CHECKOUT_TARGET * 100} %)${sqlite.checkout.failed > 0 ? `, with ${sqlite.checkout.failed} failed checkouts` : ''}.`;
}

export function renderCheckoutSection(results: EngineResult[], info: RunInfo): string {
  const o = info.options;
  return [
    '## Checkout and full purchase',
    '',
    `- Date: ${info.date}`,
    `- Machine: ${info.machine}; ${info.load}${info.pinned ? '; load generator pinned to CPU 0, service and worker to CPU 1' : ''}`,
    `- Command: \`npm run build && ${info.command}\``,
    '',
    verdict(results),
    '',
    `${o.products} books with ample stock in one web warehouse, a courier delivery method imported over the admin API, guest`,
    'baskets of 5 books filled over HTTP beforehand; the compiled service (`dist/main.js serve`, WORKER=off) and',
    '`dist/main.js worker` on CPU 1. Checkout: each `POST /checkout` a different basket (a basket is checked out once: the',
    'order, its lines, stock held, the basket emptied, in one transaction), '.concat(
      `${o.buyers} concurrent buyers; ${o.warmup} s warm-up, then ${o.seconds} s in ${o.slice} s slices taking turns`,
    ),
    `with the ceiling's (autocannon, ${o.buyers} connections). Full purchase (${o.purchases} buyers' baskets, ${o.buyers} at once): checkout,`,
    "`GET /bank/create-form`, the test gateway page's Pay (`POST /payment/test/pay/<ref>`, which posts the callback to the",
    "service over HTTP) and the browser's return (`GET /bank/return-internal`); the worker running meanwhile processes each",
    'paid order (stock sold, confirmation mail to a file, signed hand-off to a local back office that answers 200). The',
    `worker row: ${o.drain} orders paid with the worker stopped, then one worker started; orders/s from its first PROCESSING`,
    'to its last COMPLETED, as recorded in `order_status_change`.',
    '',
    ...results.flatMap((result) => [...engineTable(result, result.label === 'SQLite'), '']),
  ].join('\n');
}
