import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCtrRecorder } from '../../src/modules/ctr/index.js';
import { existingBanners } from '../../src/modules/content/index.js';
import { createBanner } from '../helpers/banners.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The recorder remembers, per hour, the placements each client address reported (8 at most per
// address). That memory is bounded; once it holds its most addresses, it must make room rather than
// refuse every address it has not seen yet: a busy hour's 50,000th visitor, or one request each from
// 50,000 addresses of an IPv6 /48 (a /64 counts as one address), left every later visitor's views and
// clicks uncounted until the hour ended.

let t: TestApp;
let bannerId: number;
const HOUR = 3_600_000;
// Mid-hour, so every report below falls in one hour.
const now = Math.floor(Date.now() / HOUR) * HOUR + HOUR / 2;
const limits = { perSessionBanner: { max: 3, windowMs: 60_000 }, perAddress: { max: 600, windowMs: 60_000 } };

beforeAll(async () => {
  t = await createTestApp();
  bannerId = await createBanner(t.database.db, { code: 'MANY-ADDRESSES' });
});
afterAll(() => t?.close());

const viewsAt = async (placement: string) => {
  const row = await t.database.db
    .selectFrom('banner_ctr')
    .select('views')
    .where('banner_id', '=', bannerId)
    .where('placement', '=', placement)
    .where('hour_start', '=', now - (now % HOUR))
    .executeTakeFirst();
  return Number(row?.views ?? 0);
};

describe('banner views from more addresses in an hour than the recorder remembers', () => {
  it('are still counted: the oldest address is forgotten, not the newest refused', async () => {
    const { log } = recordingLogger();
    // The default bound (as the app builds it), reached by one view each from that many /64 networks.
    const recorder = createCtrRecorder(t.database, log, { limits, knownBanners: existingBanners(t.database.db), intervalMs: 60_000 });
    const report = (address: string, placement: string) =>
      recorder.record({ event: 'view', storeCode: 'WEB', bannerId, placement, sessionId: undefined, address, now });
    for (let index = 0; index < 50_000; index += 1)
      report(`2001:db8:${(index >> 16).toString(16)}:${(index & 0xffff).toString(16)}::1`, 'crowd');
    await recorder.flush();
    expect(await viewsAt('crowd')).toBe(50_000);

    // Later visitors in the same hour, each from an address not seen before.
    for (let index = 1; index <= 5; index += 1) report(`198.51.100.${index}`, 'header');
    await recorder.flush();
    expect(await viewsAt('header')).toBe(5);
  });

  it('still counts an address at 8 placements an hour at most', async () => {
    const { log } = recordingLogger();
    const recorder = createCtrRecorder(t.database, log, { limits, knownBanners: existingBanners(t.database.db), intervalMs: 60_000 });
    for (let index = 1; index <= 12; index += 1)
      recorder.record({
        event: 'view',
        storeCode: 'WEB',
        bannerId,
        placement: `made-up-${index}`,
        sessionId: `s${index}`,
        address: '203.0.113.7',
        now,
      });
    await recorder.flush();
    const rows = await t.database.db.selectFrom('banner_ctr').select('placement').where('placement', 'like', 'made-up-%').execute();
    expect(rows).toHaveLength(8);
  });
});

describe('a flush that names more banner ids than one statement may bind', () => {
  it('writes the real banners and drops only the made-up ones', async () => {
    const { log, lines } = recordingLogger();
    const recorder = createCtrRecorder(t.database, log, { limits, knownBanners: existingBanners(t.database.db), intervalMs: 60_000 });
    // A flood of made-up banner ids within one interval, past SQLite's 32,766 bound parameters.
    for (let index = 0; index < 33_000; index += 1)
      recorder.record({
        event: 'view',
        storeCode: 'WEB',
        bannerId: 1_000_000 + index,
        placement: 'flood',
        sessionId: undefined,
        address: `2001:db8:1:${index.toString(16)}::1`,
        now,
      });
    recorder.record({
      event: 'view',
      storeCode: 'WEB',
      bannerId,
      placement: 'beside-flood',
      sessionId: undefined,
      address: '198.51.100.99',
      now,
    });
    await recorder.flush();
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(await viewsAt('beside-flood')).toBe(1);
  });
});
