import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { StoreRequestHeaders, success } from '../../http/schemas.js';
import { cacheFor, cacheUntil, catalogueContext } from '../catalogue/index.js';
import { isOneLetterWordList, MIN_SUGGEST_CHARS, parseQuery } from './query-text.js';
import { budgetOf } from './search-guards.routes.js';
import type { SearchRouteDeps } from './search.deps.js';
import { AutocompleteQuery, AutocompleteSchema, searchErrors, withSearchHeader } from './search.schemas.js';
import { suggestCategories } from './suggestions.js';

type Suggestions = Static<typeof AutocompleteSchema>;

/** Suggestions while the shopper types: products, persons, publishers, series and a few categories. */
export const autocompleteRoutes: FastifyPluginAsyncTypebox<SearchRouteDeps> = async (app, { catalogue, search, caller: callerOf }) => {
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
      const caller = await callerOf(request);
      const context = { ...catalogueContext(request, caller), budget: budgetOf(request) };
      await search.ready(context.now);
      const { query } = request;
      const text = parseQuery(query.term);
      const products = async (limit: number) =>
        limit === 0 ? [] : catalogue.cards(context, await search.suggestProducts(context, text, limit));
      const none: Suggestions = { products: [], persons: [], publishers: [], series: [], categories: [] };
      reply.header('X-Search-Available', '1');
      // Kept no longer than until a price of a suggested product changes (a campaign starts or ends).
      const priced = async (cards: Suggestions['products']) => {
        cacheUntil(
          reply,
          context,
          await catalogue.pricesChangeAt(
            context,
            cards.map((card) => card.id),
          ),
        );
        return cards;
      };
      cacheFor(reply, caller);
      if (text.kind === 'codes') return { ...none, products: await priced(await products(query.productLimit ?? 6)) };
      // Nothing, one short word or only one-letter words: too little to suggest from (it would match much
      // of the catalogue). Suggestions are asked while typing, so this is an empty answer, not a 400.
      if (text.kind !== 'text' || text.terms.length === 0 || isOneLetterWordList(query.term)) return none;
      if (text.terms.length === 1 && text.terms[0]!.length < MIN_SUGGEST_CHARS) return none;
      const tree = await catalogue.categoryTree(context.store.code, context.language);
      const [found, persons, publishers, series] = await Promise.all([
        products(query.productLimit ?? 6),
        search.names(context, 'person', text, query.personLimit ?? 4),
        search.names(context, 'publisher', text, query.publisherLimit ?? 3),
        search.names(context, 'series', text, query.seriesLimit ?? 3),
      ]);
      const categories = suggestCategories(tree, text, query.categoryLimit ?? 3).map((id) => {
        const node = tree.byId.get(id)!;
        return { id: node.id, code: node.code, name: node.name, level: node.level, parentId: node.parentId };
      });
      return { products: await priced(found), persons, publishers, series, categories };
    },
  );
};
