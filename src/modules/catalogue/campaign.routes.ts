import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { toRfc3339 } from '../../db/time.js';
import { requestStore } from '../../http/request-context.js';
import { CampaignCodeParams, CampaignSchema } from './campaign.schemas.js';
import { campaignProductCounts, findCampaign, listCampaigns, type CampaignRow, type CampaignScope } from './campaign.repository.js';
import type { CatalogueDeps } from './catalogue.routes.js';
import { storeListRoutes } from './store-list.js';

/** Campaign lists: the store's campaigns valid now, one campaign, and its products (campaign prices on the cards). */
export const campaignRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, deps) => {
  const db = deps.database.db;
  const scopeOf = (request: FastifyRequest): CampaignScope => ({ storeCode: requestStore(request).code, language: request.language, now: request.actionTime });

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
      products: 'Products of a campaign, priced for the caller (the campaign price where their customer kind has one); default order: the campaign\'s',
    },
    page: (request, offset, limit) => listCampaigns(db, scopeOf(request), offset, limit),
    find: (request, by) => findCampaign(db, scopeOf(request), by),
    productCounts: (storeCode, caller, ids) => campaignProductCounts(db, storeCode, caller, ids),
    toWire: (row: CampaignRow, productCount): Static<typeof CampaignSchema> => ({
      ...row,
      validFrom: row.validFrom === null ? null : toRfc3339(row.validFrom),
      validTo: row.validTo === null ? null : toRfc3339(row.validTo),
      productCount,
    }),
    products: (id) => ({ campaignId: id }),
  });
};
