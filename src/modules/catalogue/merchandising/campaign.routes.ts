import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { toRfc3339 } from '../../../db/time.js';
import { CampaignCodeParams, CampaignSchema } from './campaign.schemas.js';
import {
  campaignProductCounts,
  campaignsChangeAt,
  findCampaign,
  listCampaigns,
  type CampaignRow,
  type CampaignScope,
} from './campaign.repository.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import type { CatalogueContext } from '../catalogue.service.js';
import { storeListRoutes } from './store-lists.routes.js';

/** Campaign lists: the store's campaigns valid now, one campaign, and its products (campaign prices on the cards). */
export const campaignRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const db = deps.database.db;
  const scopeOf = ({ store, language, now }: CatalogueContext): CampaignScope => ({ storeCode: store.code, language, now });

  storeListRoutes(app, deps, {
    path: '/campaign',
    tags: ['campaign lists'],
    item: CampaignSchema,
    codeParams: CampaignCodeParams,
    notFound: 'catalogue.campaignNotFound',
    summaries: {
      list: 'Campaigns of the store that are valid now, in display order',
      one: 'One campaign of the store, if it is valid now',
      byCode: 'One campaign of the store by its back-office code, if it is valid now',
      products:
        "Products of a campaign, priced for the caller (the campaign price where their customer kind has one); default order: the campaign's",
    },
    page: (context, offset, limit) => listCampaigns(db, scopeOf(context), offset, limit),
    find: (context, by) => findCampaign(db, scopeOf(context), by),
    productCounts: ({ store, caller }, ids) => campaignProductCounts(db, store.code, caller, ids),
    toWire: (row: CampaignRow, productCount): Static<typeof CampaignSchema> => ({
      ...row,
      validFrom: row.validFrom === null ? null : toRfc3339(row.validFrom),
      validTo: row.validTo === null ? null : toRfc3339(row.validTo),
      productCount,
    }),
    products: (id) => ({ campaignId: id }),
    changesAt: ({ store, now }) => campaignsChangeAt(db, store.code, now),
  });
};
