import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { ScheduleData, ScheduleException } from './schedule.js';

// The SQL of shop schedules: reading one shop's, and replacing it whole (the import and the admin edit).

/** A shop shoppers see (active and listed: its page, its schedule, a QR code to it), by code. */
export async function shownShopId(db: Db, code: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('shop')
    .select('id')
    .where('code', '=', code)
    .where('is_active', '=', true)
    .where('is_listed', '=', true)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

export async function shopIdByCode(db: Db, code: string): Promise<number | undefined> {
  const row = await db.selectFrom('shop').select('id').where('code', '=', code).executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

function parseNames(text: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export async function scheduleOf(db: Db, shopId: number): Promise<ScheduleData> {
  const [weekly, exceptions] = await Promise.all([
    db.selectFrom('shop_opening_hours').selectAll().where('shop_id', '=', shopId).execute(),
    db.selectFrom('shop_schedule_exception').selectAll().where('shop_id', '=', shopId).execute(),
  ]);
  return {
    weekly: new Map(weekly.map((row) => [row.weekday, { opensMinute: row.opens_minute, closesMinute: row.closes_minute }])),
    exceptions: new Map(
      exceptions.map((row): [string, ScheduleException] => [
        row.day,
        {
          day: row.day,
          hours:
            row.opens_minute === null || row.closes_minute === null
              ? null
              : { opensMinute: row.opens_minute, closesMinute: row.closes_minute },
          names: parseNames(row.names),
        },
      ]),
    ),
  };
}

/**
 * Replaces the shop's schedule with `data`; returns whether anything differed. The shop's row is
 * locked first (PostgreSQL): two replacements at once read the stored schedule one after the other,
 * where both read it before either wrote and the shop kept the days of both.
 */
export async function replaceSchedule(db: Db, shopId: number, data: ScheduleData): Promise<boolean> {
  await lockRowsOnPostgres(db, db.selectFrom('shop').select('id').where('id', '=', shopId), 'no key update');
  const stored = await scheduleOf(db, shopId);
  if (sameSchedule(stored, data)) return false;
  await db.deleteFrom('shop_opening_hours').where('shop_id', '=', shopId).execute();
  await db.deleteFrom('shop_schedule_exception').where('shop_id', '=', shopId).execute();
  const weekly = [...data.weekly].map(([weekday, hours]) => ({
    shop_id: shopId,
    weekday,
    opens_minute: hours.opensMinute,
    closes_minute: hours.closesMinute,
  }));
  if (weekly.length > 0) await db.insertInto('shop_opening_hours').values(weekly).execute();
  const exceptions = [...data.exceptions.values()].map((exception) => ({
    shop_id: shopId,
    day: exception.day,
    opens_minute: exception.hours?.opensMinute ?? null,
    closes_minute: exception.hours?.closesMinute ?? null,
    names: JSON.stringify(exception.names),
  }));
  // Chunks keep a year of exceptions under SQLite's bound-parameter limit.
  for (let index = 0; index < exceptions.length; index += 100) {
    await db
      .insertInto('shop_schedule_exception')
      .values(exceptions.slice(index, index + 100))
      .execute();
  }
  return true;
}

function sameSchedule(a: ScheduleData, b: ScheduleData): boolean {
  const canonical = (data: ScheduleData) =>
    JSON.stringify([
      [...data.weekly].sort(([x], [y]) => x - y),
      [...data.exceptions.values()]
        .sort((x, y) => x.day.localeCompare(y.day))
        .map((exception) => [exception.day, exception.hours, Object.entries(exception.names).sort()]),
    ]);
  return canonical(a) === canonical(b);
}

export async function deleteSchedule(db: Db, shopId: number): Promise<boolean> {
  const hours = await db.deleteFrom('shop_opening_hours').where('shop_id', '=', shopId).executeTakeFirst();
  const exceptions = await db.deleteFrom('shop_schedule_exception').where('shop_id', '=', shopId).executeTakeFirst();
  return Number(hours.numDeletedRows) + Number(exceptions.numDeletedRows) > 0;
}
