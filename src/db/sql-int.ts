import { sql, type RawBuilder } from 'kysely';

/**
 * A bound integer that stays an integer in SQL arithmetic: better-sqlite3 binds JavaScript
 * numbers as REAL, and `2 * ? / 3` must divide as integers on both engines.
 */
export const int = (value: number): RawBuilder<number> => sql<number>`cast(${Math.round(value)} as bigint)`;
