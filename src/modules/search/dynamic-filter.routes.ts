import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ProductTypeCode } from '../../db/schema.js';
import { StoreRequestHeaders, success } from '../../http/schemas.js';
import { cacheFor, catalogueContext, type CategoryTree } from '../catalogue/index.js';
import { toWireMoney } from '../pricing/index.js';
import type { NameKind } from './engine.js';
import { parseTerms } from './query-text.js';
import type { SearchRouteDeps } from './search.deps.js';
import { budgetOf, refuseOneLetterWordLists } from './search-guards.routes.js';
import { searchInput } from './search-input.js';
import { splitListParameters } from './search-request.routes.js';
import { FacetSearchQuery, FacetsQuery, FacetsSchema, NamedCountSchema, searchErrors, withSearchHeader } from './search.schemas.js';

const FACET_SEARCHES: Array<[path: string, kind: NameKind, what: string]> = [
  ['search-author', 'person', 'persons (authors, illustrators, translators, readers, ...)'],
  ['search-series', 'series', 'series'],
  ['search-publisher', 'publisher', 'publishers'],
];

/** Facets of a search: the values its products have, each with how many products the search finds with it. */
export const dynamicFilterRoutes: FastifyPluginAsyncTypebox<SearchRouteDeps> = async (app, { catalogue, search, caller: callerOf }) => {
  app.get(
    '/product-dynamic-filter/filters',
    {
      preValidation: splitListParameters,
      schema: {
        tags: ['dynamic filters'],
        summary: 'Facet values with counts over what the search with these parameters finds (the parameters of /product/search)',
        headers: StoreRequestHeaders,
        querystring: FacetsQuery,
        response: { 200: withSearchHeader(success(FacetsSchema)), ...searchErrors },
      },
    },
    async (request, reply) => {
      refuseOneLetterWordLists(request.query.q);
      const caller = await callerOf(request);
      const context = { ...catalogueContext(request, caller), budget: budgetOf(request) };
      await search.ready(context.now);
      const tree = await catalogue.categoryTree(context.store.code, context.language);
      const input = await searchInput(catalogue, context, request.query);
      const buckets = bucketsBelow(tree, request.query.categoryId);
      const { counts, total, names } = await search.facets(context, input, {
        categoryBuckets: buckets.pairs,
        parentCategoryId: request.query.categoryId ?? null,
        limit: request.query.facetLimit ?? 20,
      });
      const bindings = await catalogue.bindings();
      const named = (kind: NameKind, list: Array<{ value: number; count: number }>) =>
        list.flatMap(({ value, count }) => {
          const ref = names[kind].get(value);
          return ref ? [{ ...ref, count }] : [];
        });
      const categoryCounts = new Map(counts.categories.map((c) => [c.value, c.count]));
      reply.header('X-Search-Available', '1');
      cacheFor(reply, caller);
      return {
        total,
        capped: counts.capped,
        categories: buckets.nodes.flatMap((node) => {
          const count = categoryCounts.get(node.id) ?? 0;
          return count > 0 ? [{ id: node.id, code: node.code, name: node.name, level: node.level, parentId: node.parentId, count }] : [];
        }),
        persons: named('person', counts.persons),
        bindings: counts.bindings.map(({ value, count }) => ({ code: value, name: bindings.name(value, request.language), count })),
        publishers: named('publisher', counts.publishers),
        series: named('series', counts.series),
        languages: counts.languages.map(({ value, count }) => ({ code: value, count })),
        types: counts.types.map(({ value, count }) => ({ code: value as ProductTypeCode, count })),
        price: counts.price && { min: toWireMoney(counts.price.min), max: toWireMoney(counts.price.max) },
      };
    },
  );

  for (const [path, kind, what] of FACET_SEARCHES) {
    app.get(
      `/product-dynamic-filter/${path}`,
      {
        preValidation: splitListParameters,
        schema: {
          tags: ['dynamic filters'],
          summary: `Searches the ${what} facet: names matching the term among what the search finds, with counts`,
          headers: StoreRequestHeaders,
          querystring: FacetSearchQuery,
          response: { 200: withSearchHeader(success(Type.Array(NamedCountSchema))), ...searchErrors },
        },
      },
      async (request, reply) => {
        refuseOneLetterWordLists(request.query.q, request.query.term);
        const caller = await callerOf(request);
        const context = { ...catalogueContext(request, caller), budget: budgetOf(request) };
        await search.ready(context.now);
        const input = await searchInput(catalogue, context, request.query);
        const values = await search.facetValues(context, input, kind, parseTerms(request.query.term), request.query.limit ?? 10);
        reply.header('X-Search-Available', '1');
        cacheFor(reply, caller);
        return values;
      },
    );
  }
};

/** The categories a facet counts (the children of `parentId`, or the top ones) and which category counts toward which. */
function bucketsBelow(tree: CategoryTree, parentId: number | undefined) {
  const nodes = parentId === undefined ? tree.roots : (tree.byId.get(parentId)?.childIds ?? []).map((id) => tree.byId.get(id)!);
  const pairs = nodes.flatMap((node) => tree.subtreeIds(node.id).map((id) => [id, node.id] as const));
  return { nodes, pairs };
}
