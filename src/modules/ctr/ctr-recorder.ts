import type { DatabaseHandle } from '../../db/database.js';
import { addressKey } from '../../infra/address-key.js';
import { tokenBuckets } from '../../infra/token-bucket.js';
import type { CtrSection } from './ctr.config.js';
import { addCtrCounts, type CtrCount } from './ctr.repository.js';

export type CtrEvent = 'view' | 'click';

/**
 * Which of these banner ids are banners of the store (the content module's banners; app.ts hands
 * the check in). Asked once per store and flush, never on the request path; an unknown id's
 * counts are dropped.
 */
export type BannerCheck = (storeCode: string, bannerIds: readonly number[]) => Promise<ReadonlySet<number>>;

/** Where the recorder reports lost counts (a pino logger fits). */
export interface CtrLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface CtrReport {
  event: CtrEvent;
  storeCode: string;
  bannerId: number;
  placement: string;
  /** The front-end's session token, or undefined: then the client address stands for the session. */
  sessionId: string | undefined;
  address: string;
  now: number;
}

export interface CtrRecorder {
  /** Counts one event in memory; never throws, never waits. Past a cap it is silently not counted. */
  record(report: CtrReport): void;
  /** Writes what has been counted; called on app close and by the timer. */
  flush(): Promise<void>;
}

export interface CtrRecorderOptions {
  limits: CtrSection;
  knownBanners: BannerCheck;
  /** How long counts may wait in memory before they are written. */
  intervalMs?: number;
  /**
   * Distinct store/banner/placement/hour keys held at most (the database is down): beyond, events are dropped.
   * Also the most client addresses whose placements are remembered in an hour: beyond, the first seen is forgotten.
   */
  maxKeys?: number;
  /** Distinct placements one client address may report in an hour: its events at any other are dropped. */
  placementsPerAddress?: number;
}

const HOUR_MS = 3_600_000;
const BATCH = 500;
/**
 * A placement is the front-end's word for where a banner was shown (header, main-page, ...), and every
 * one makes a row per banner and hour: without a bound one address made up a new one per event, up to
 * its CTR_CAP_PER_IP (36,000 rows an hour at the default). A front-end shows a banner in a few places.
 */
export const PLACEMENTS_PER_ADDRESS = 8;

/**
 * Adds views and clicks up in memory and writes them as a few upserts per interval, so a banner
 * shown on every page costs no write per page. The caps (token buckets, like session actions')
 * keep one browser's burst, or a bot's, to a handful of counts a minute per banner.
 */
export function createCtrRecorder(database: DatabaseHandle, log: CtrLog, options: CtrRecorderOptions): CtrRecorder {
  const intervalMs = options.intervalMs ?? 1000;
  const maxKeys = options.maxKeys ?? 50_000;
  const perSessionBanner = tokenBuckets(options.limits.perSessionBanner);
  const perAddress = tokenBuckets(options.limits.perAddress);
  const placementsPerAddress = options.placementsPerAddress ?? PLACEMENTS_PER_ADDRESS;
  // The placements each address reported this hour (of this process); a new hour starts them afresh.
  let placementsHour = 0;
  let placementsOf = new Map<string, Set<string>>();
  let counts = new Map<string, CtrCount>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  // Keys handed to a write that has not finished: while the database stalls they wait in memory too.
  let waitingKeys = 0;
  let dropped = 0;

  const write = async (batch: CtrCount[]): Promise<void> => {
    try {
      const known = new Map<string, ReadonlySet<number>>();
      for (const storeCode of new Set(batch.map((count) => count.storeCode))) {
        const ids = [...new Set(batch.filter((count) => count.storeCode === storeCode).map((count) => count.bannerId))];
        // Asked in slices: a flood of made-up ids (tens of thousands a second) in one statement passed
        // SQLite's 32,766 bound parameters, and the batch, real banners' counts with it, was lost.
        const banners = new Set<number>();
        for (let start = 0; start < ids.length; start += BATCH) {
          for (const id of await options.knownBanners(storeCode, ids.slice(start, start + BATCH))) banners.add(id);
        }
        known.set(storeCode, banners);
      }
      const kept = batch.filter((count) => known.get(count.storeCode)?.has(count.bannerId));
      for (let start = 0; start < kept.length; start += BATCH) await addCtrCounts(database.db, kept.slice(start, start + BATCH));
    } catch (err) {
      log.error({ err, rows: batch.length }, 'banner views and clicks not recorded');
    }
  };

  const drain = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (counts.size > 0) {
      const batch = [...counts.values()];
      counts = new Map();
      waitingKeys += batch.length;
      writing = writing
        .then(() => write(batch))
        .finally(() => {
          waitingKeys -= batch.length;
        });
    }
    if (dropped > 0) {
      log.warn({ dropped }, 'banner views and clicks dropped: too many waiting to be written');
      dropped = 0;
    }
    return writing;
  };

  /** Whether the address may report at this placement this hour; records it as one of the address's. */
  const placementAllowed = (address: string, placement: string, hourStart: number): boolean => {
    if (hourStart > placementsHour) {
      placementsHour = hourStart;
      placementsOf = new Map();
    }
    let placements = placementsOf.get(address);
    if (placements?.has(placement)) return true;
    if (placements === undefined) {
      // Full: the address seen first this hour is forgotten (it may name 8 placements afresh). Refusing
      // the new one instead left every later visitor of the hour uncounted once 50,000 addresses (IPv6
      // /64s, one request each) had reported; forgetting gives a client nothing a new address would not.
      if (placementsOf.size >= maxKeys) placementsOf.delete(placementsOf.keys().next().value as string);
      placements = new Set();
      placementsOf.set(address, placements);
    }
    if (placements.size >= placementsPerAddress) return false;
    placements.add(placement);
    return true;
  };

  return {
    record(report) {
      try {
        const session = report.sessionId ?? `address:${addressKey(report.address)}`;
        const sessionKey = `${report.storeCode}|${session}|${report.bannerId}|${report.event}`;
        // The session's cap first: a burst past it does not use up its address's allowance.
        if (perSessionBanner.take(sessionKey, 1, report.now) > 0) return;
        const address = addressKey(report.address);
        if (perAddress.take(address, 1, report.now) > 0) return;
        const hourStart = report.now - (report.now % HOUR_MS);
        if (!placementAllowed(address, report.placement, hourStart)) return;
        const key = `${report.storeCode}|${report.bannerId}|${report.placement}|${hourStart}`;
        let count = counts.get(key);
        if (count === undefined) {
          // With the batches still being written: each interval's counts leave the map for a write
          // chained behind the one that waits, so the map alone never reached the cap in a stall.
          if (counts.size + waitingKeys >= maxKeys) {
            dropped += 1;
            return;
          }
          count = { storeCode: report.storeCode, bannerId: report.bannerId, placement: report.placement, hourStart, views: 0, clicks: 0 };
          counts.set(key, count);
        }
        if (report.event === 'view') count.views += 1;
        else count.clicks += 1;
        if (timer === undefined) {
          timer = setTimeout(() => void drain(), intervalMs);
          timer.unref();
        }
      } catch (err) {
        log.error({ err }, 'banner view or click not recorded');
      }
    },
    flush: () => drain(),
  };
}
