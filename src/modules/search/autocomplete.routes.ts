import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { requestStore } from '../../http/request-context.js';
import { StoreRequestHeaders, success } from '../../http/schemas.js';
import { MIN_SUGGEST_CHARS, parseQuery } from './query-text.js';
import { AutocompleteQuery, AutocompleteSchema } from './search.schemas.js';
import { searchErrors, withSearchHeader, type SearchDeps } from './search.routes.js';
import { suggestCategories } from './suggestions.js';

type Suggestions = Static<typeof AutocompleteSchema>;

/** Suggestions while the shopper types: products, persons, publishers, series and a few categories. */
export const autocompleteRoutes: FastifyPluginAsyncTypebox<SearchDeps> = async (app, { catalogue, search }) => {
  app.get(
    '/autocomplete',
    {
      schema: {
        tags: ['autocomplete suggestions'],
        summary: 'Suggestions for a partly typed term; an EAN or ISBN returns only that product',
        headers: StoreRequestHeaders,
        querystring: AutocompleteQuery,
        response: { 200: withSearchHeader(success(AutocompleteSchema)), ...searchErrors },
      },
    },
    async (request, reply): Promise<Suggestions> => {
      const caller = await catalogue.caller(request);
      await search.ready();
      const { query } = request;
      const text = parseQuery(query.term);
      const products = async (limit: number) => (limit === 0 ? [] : catalogue.cards(request, caller, await search.suggestProducts(request, caller, text, limit)));
      const none: Suggestions = { products: [], persons: [], publishers: [], series: [], categories: [] };
      reply.header('X-Search-Available', '1');
      catalogue.cacheFor(reply, caller);
      if (text.kind === 'codes') return { ...none, products: await products(query.productLimit ?? 6) };
      // Nothing, or one short word: too little to suggest from (it would match much of the catalogue).
      if (text.kind !== 'text' || text.terms.length === 0) return none;
      if (text.terms.length === 1 && text.terms[0]!.length < MIN_SUGGEST_CHARS) return none;
      const tree = await catalogue.categoryTree(requestStore(request).code, request.language);
      const [found, persons, publishers, series] = await Promise.all([
        products(query.productLimit ?? 6),
        search.names(request, caller, 'person', text, query.personLimit ?? 4),
        search.names(request, caller, 'publisher', text, query.publisherLimit ?? 3),
        search.names(request, caller, 'series', text, query.seriesLimit ?? 3),
      ]);
      const categories = suggestCategories(tree, text, query.categoryLimit ?? 3).map((id) => {
        const node = tree.byId.get(id)!;
        return { id: node.id, code: node.code, name: node.name, level: node.level, parentId: node.parentId };
      });
      return { products: found, persons, publishers, series, categories };
    },
  );
};
