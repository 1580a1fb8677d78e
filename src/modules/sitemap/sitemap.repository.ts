import type { Db } from '../../db/database.js';

export interface SectionStatus {
  storeCode: string;
  section: string;
  generatedAt: number;
  urls: number;
  files: string[];
  error: string | null;
}

export async function sectionStatuses(db: Db, storeCode?: string): Promise<SectionStatus[]> {
  let query = db.selectFrom('sitemap_section').selectAll().orderBy('store_code').orderBy('section');
  if (storeCode !== undefined) query = query.where('store_code', '=', storeCode);
  const rows = await query.execute();
  return rows.map((row) => ({
    storeCode: row.store_code,
    section: row.section,
    generatedAt: Number(row.generated_at),
    urls: row.urls,
    files: JSON.parse(row.files) as string[],
    error: row.error,
  }));
}

/** Replaces the store's statuses with this run's (sections no longer generated are dropped). */
export async function replaceSectionStatuses(trx: Db, storeCode: string, statuses: readonly SectionStatus[]): Promise<void> {
  await trx.deleteFrom('sitemap_section').where('store_code', '=', storeCode).execute();
  if (statuses.length === 0) return;
  await trx
    .insertInto('sitemap_section')
    .values(
      statuses.map((status) => ({
        store_code: storeCode,
        section: status.section,
        generated_at: status.generatedAt,
        urls: status.urls,
        files: JSON.stringify(status.files),
        error: status.error,
      })),
    )
    .execute();
}
