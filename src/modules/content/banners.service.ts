import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { shownLinkTarget } from '../../http/link-target.js';
import { bannersAt, type BannerRow } from './content.repository.js';
import type { ContentContext } from './content-read.types.js';
import type { BannerWire } from './content.schemas.js';
import { isShown } from './published.js';
import { parseTranslations, pickLanguage } from './translations.js';

// Banners: of a placement, the ones shown now in this store to this kind of customer, in order.

interface BannerTexts {
  title: string;
  body?: string;
  imageUrl?: string;
}

/** Whether a banner is for this customer kind (no kinds listed: for everybody). */
function forKind(row: BannerRow, kind: string): boolean {
  return row.customer_kinds === '' || row.customer_kinds.split(',').includes(kind);
}

function toWire(row: BannerRow, context: ContentContext): BannerWire | undefined {
  const picked = pickLanguage(parseTranslations<BannerTexts>(row.translations), context.catalogue.language, context.defaultLanguage);
  if (picked === undefined) return undefined;
  return {
    id: Number(row.id),
    code: row.code,
    placement: row.placement,
    position: row.position,
    language: picked.language,
    title: picked.texts.title,
    body: picked.texts.body ?? null,
    // A language may have its own picture (text in the image); else the banner's.
    imageUrl: picked.texts.imageUrl ?? row.image_url,
    linkUrl: shownLinkTarget(row.link_url),
  };
}

/** The banners shown at each of these placements, by placement. */
export async function bannersByPlacement(
  db: Kysely<Database>,
  context: ContentContext,
  placements: readonly string[],
): Promise<Map<string, BannerWire[]>> {
  const rows = await bannersAt(db, context.catalogue.store.code, placements, context.audience);
  const result = new Map<string, BannerWire[]>(placements.map((placement) => [placement, []]));
  for (const row of rows) {
    // The kind first: another kind's banner neither shows nor changes this answer.
    if (!forKind(row, context.catalogue.caller.kind) || !isShown(row, context.audience)) continue;
    const wire = toWire(row, context);
    if (wire) result.get(row.placement)?.push(wire);
  }
  return result;
}

export const HEADER_PLACEMENT = 'HEADER';
export const MENU_PLACEMENT = 'MENU';
