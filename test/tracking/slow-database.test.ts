import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionActionRecorder } from '../../src/modules/tracking/index.js';
import { whileWritesWait } from '../helpers/lock-waits.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Session actions are answered at once and written in batches after. While the database does not
// take the batches (a lock held for minutes, a pool with no free connection) the actions waiting to
// be written are capped (maxQueued): past it new ones are dropped and logged, not kept in memory.
// The cap counted only the actions not yet handed to a write, and a batch is handed over as soon as
// it is full: every action went into a write waiting for the database, and memory grew without bound.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const count = async () => {
  const row = await t.database.db
    .selectFrom('session_action')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

describe('session actions while the database does not take them', () => {
  it('keep at most maxQueued waiting; the rest are dropped and logged', async () => {
    const { log, lines } = recordingLogger();
    const recorder = createSessionActionRecorder(t.database, log, { intervalMs: 5, batchSize: 100, maxQueued: 1000 });
    await whileWritesWait(t.database.db, 'session_action', async () => {
      for (let index = 0; index < 5000; index += 1) {
        recorder.record({
          sessionId: `slow-${index}`,
          storeCode: 'WEB',
          productCode: 'BOOK-1',
          clientCode: null,
          actionType: 'VIEW',
          createdAt: Date.now(),
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await recorder.flush();
    expect(await count()).toBe(1000);
    expect(lines.some((line) => line.level === 'warn' && line.msg === 'session actions dropped: too many waiting to be written')).toBe(
      true,
    );
  });
});
