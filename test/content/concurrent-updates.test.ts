import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import type { TestApp } from '../helpers/test-app.js';
import { putContent, read } from './content-helpers.js';

// Two writes of one existing block page at once (an import and an operator's PUT, two operators):
// each replaces the page's blocks. Both read the stored blocks before either wrote (PostgreSQL), the
// second's delete then missed the blocks the first had just inserted, and the page kept both sets:
// every block twice over on the main page. The page's row is now locked before its blocks are read,
// so the second write replaces the first's blocks. SQLite runs one write transaction at a time.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const rich = (body: string) => ({ type: 'RICH_TEXT', translations: { et: { body } } });
const page = (...bodies: string[]) => ({
  store: 'WEB',
  kind: 'MAIN',
  translations: { et: { title: 'Avaleht' } },
  blocks: bodies.map(rich),
});

describe('PUT /admin/content/composite-pages/{code} of one page twice at once', () => {
  it('leaves the blocks of one of them, not both', async () => {
    expect((await putContent(t, key, 'composite-pages', 'HOME', page('<p>vana 1</p>', '<p>vana 2</p>'))).statusCode).toBe(200);
    const answers = await withTableHeld(t.database.db, 'page_block', () =>
      Promise.all([
        putContent(t, key, 'composite-pages', 'HOME', page('<p>esimene</p>')),
        putContent(t, key, 'composite-pages', 'HOME', page('<p>teine</p>')),
      ]),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const main = await read(t, '/main-page');
    expect(main.statusCode).toBe(200);
    const bodies = (main.json() as { blocks: Array<{ body: string }> }).blocks.map((block) => block.body);
    expect([['<p>esimene</p>'], ['<p>teine</p>']]).toContainEqual(bodies);
  });
});
