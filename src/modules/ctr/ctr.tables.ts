// Banner views and clicks per store, banner, placement and hour (migration 1201).
// Conventions of every table: src/db/schema.ts.

export interface BannerCtrTable {
  store_code: string;
  banner_id: number;
  placement: string;
  /** Unix ms at the start of the hour the events fell in. */
  hour_start: number;
  views: number;
  clicks: number;
}

export interface CtrTables {
  banner_ctr: BannerCtrTable;
}
