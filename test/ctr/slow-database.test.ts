import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existingBanners } from '../../src/modules/content/index.js';
import { createCtrRecorder } from '../../src/modules/ctr/index.js';
import { createBanner } from '../helpers/banners.js';
import { whileWritesWait } from '../helpers/lock-waits.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Banner views and clicks are added up in memory and written about once a second. While the
// database does not take the writes (a lock held, a pool with no free connection), the counts
// waiting are capped (maxKeys): past it new ones are dropped and logged. The cap counted only the
// interval's counts, which each interval hands to a write chained behind the waiting one: every
// interval's batch was kept in memory for as long as the database stalled.

let t: TestApp;
let bannerId: number;
const HOUR = 3_600_000;
const now = Math.floor(Date.now() / HOUR) * HOUR + HOUR / 2;
const limits = { perSessionBanner: { max: 3, windowMs: 60_000 }, perAddress: { max: 600, windowMs: 60_000 } };

beforeAll(async () => {
  t = await createTestApp();
  bannerId = await createBanner(t.database.db, { code: 'SLOW-DATABASE' });
});
afterAll(() => t?.close());

describe('banner views while the database does not take them', () => {
  it('keep at most maxKeys counts waiting, over many intervals; the rest are dropped and logged', async () => {
    const { log, lines } = recordingLogger();
    const recorder = createCtrRecorder(t.database, log, {
      limits,
      knownBanners: existingBanners(t.database.db),
      intervalMs: 5,
      maxKeys: 1000,
    });
    await whileWritesWait(t.database.db, 'banner_ctr', async () => {
      // Ten intervals of 500 new keys each (a placement of its own per address).
      for (let round = 0; round < 10; round += 1) {
        for (let index = 0; index < 500; index += 1) {
          const n = round * 500 + index;
          recorder.record({
            event: 'view',
            storeCode: 'WEB',
            bannerId,
            placement: `p${n}`,
            sessionId: undefined,
            address: `10.9.${n >> 8}.${n & 255}`,
            now,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    await recorder.flush();
    const rows = await t.database.db.selectFrom('banner_ctr').select('placement').where('banner_id', '=', bannerId).execute();
    expect(rows).toHaveLength(1000);
    expect(
      lines.some((line) => line.level === 'warn' && line.msg === 'banner views and clicks dropped: too many waiting to be written'),
    ).toBe(true);
  });
});
