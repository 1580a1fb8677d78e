import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { createShop } from '../helpers/catalogue.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import type { TestApp } from '../helpers/test-app.js';

// Two writes of one existing blog post at once (an import and an operator's PUT): each replaces its
// tags. Both read the stored tags before either wrote (PostgreSQL), the second's delete missed the
// tags the first had just inserted, and the post kept both writes' tags. (Translations and category
// names always share `et`, whose key made the second write run again.) The record's row is now
// locked before its child rows are read, so the second write replaces the first's. A shop's schedule
// was replaced the same way: the shop was left open on the weekdays of both. SQLite runs one write
// transaction at a time.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const put = (kind: string, code: string, body: object) =>
  t.app.inject({ method: 'PUT', url: `/admin/content/${kind}/${code}`, headers: { authorization: `Bearer ${key}` }, payload: body });
const get = (url: string) => t.app.inject({ method: 'GET', url });

const post = (tags: string[]) => ({
  store: 'WEB',
  language: 'et',
  slug: 'kaks',
  title: 'Kaks',
  body: '<p>x</p>',
  publishedAt: '2026-01-01',
  tags,
});

describe('PUT /admin/content/blog-posts/{code} of one existing post twice at once', () => {
  it("leaves a post with one of the two writes' tags, not both", async () => {
    expect((await put('blog-posts', 'TWO', post(['vana']))).statusCode).toBe(200);
    const answers = await withTableHeld(t.database.db, 'blog_post_tag', () =>
      Promise.all([put('blog-posts', 'TWO', post(['esimene'])), put('blog-posts', 'TWO', post(['teine']))]),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const shown = await get('/blog/kaks');
    expect([['esimene'], ['teine']]).toContainEqual(shown.json().tags);
  });
});

describe('PUT /admin/content/shop-schedules/{shop} of one shop twice at once', () => {
  it("leaves the shop open on one of the two writes' days, not both", async () => {
    await createShop(t.database.db, { code: 'VIRU', name: 'Viru' });
    const week = (weekday: number) => ({ weekly: [{ weekday, opens: '10:00', closes: '18:00' }] });
    expect((await put('shop-schedules', 'VIRU', week(1))).statusCode).toBe(200);
    const answers = await withTableHeld(t.database.db, 'shop_opening_hours', () =>
      Promise.all([put('shop-schedules', 'VIRU', week(2)), put('shop-schedules', 'VIRU', week(3))]),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const open = (await get('/shop/VIRU/schedule')).json().weekdays.filter((day: { closed: boolean }) => !day.closed);
    expect([[2], [3]]).toContainEqual(open.map((day: { weekday: number }) => day.weekday));
  });
});
