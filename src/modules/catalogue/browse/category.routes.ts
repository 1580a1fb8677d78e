import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { HttpError } from '../../../http/errors.js';
import { requestStore } from '../../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { cacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, SortedPagingQuery } from '../catalogue.schemas.js';
import type { CatalogueContext } from '../catalogue.service.js';
import { productsRoute } from '../lists.routes.js';
import type { CategoryNode, CategoryTree } from './category-tree.js';
import { CategoryDetailsSchema, CategoryTreeNodeSchema } from './category.schemas.js';

type TreeNode = Static<typeof CategoryTreeNodeSchema>;

const readErrors = errors(...storeRouteErrors, 401, 404);

/** Categories: the store's tree, one category with its breadcrumb, and its products. */
export const categoryRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { catalogue, caller: callerOf } = deps;
  const treeOf = ({ store, language }: Pick<CatalogueContext, 'store' | 'language'>) => catalogue.categoryTree(store.code, language);

  /** The category if it is active in this store's tree (under active parents); 404 otherwise. */
  function nodeOf(tree: CategoryTree, id: number): CategoryNode {
    const node = tree.byId.get(id);
    if (!node) throw new HttpError(404, 'catalogue.categoryNotFound', { id });
    return node;
  }

  app.get(
    '/category',
    {
      schema: {
        tags: ['categories'],
        summary: "The store's category tree: active categories, translated, in display order",
        headers: StoreRequestHeaders,
        response: { 200: success(Type.Array(CategoryTreeNodeSchema)), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const tree = await treeOf({ store: requestStore(request), language: request.language });
      const toNode = (node: CategoryNode): TreeNode => ({
        id: node.id,
        code: node.code,
        name: node.name,
        level: node.level,
        children: node.childIds.map((child) => toNode(tree.byId.get(child)!)),
      });
      cacheFor(reply, caller);
      return tree.roots.map(toNode);
    },
  );

  app.get(
    '/category/:id',
    {
      schema: {
        tags: ['categories'],
        summary: 'A category with its breadcrumb, subcategories and the number of products in it and below',
        headers: StoreRequestHeaders,
        params: IdParams,
        response: { 200: success(CategoryDetailsSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const tree = await treeOf(context);
      const node = nodeOf(tree, request.params.id);
      const ref = ({ id, code, name }: CategoryNode) => ({ id, code, name });
      const count = await catalogue.productCount(context, { categoryIds: tree.subtreeIds(node.id) });
      cacheFor(reply, caller);
      return {
        ...ref(node),
        description: node.description,
        level: node.level,
        path: tree.path(node.id).map(ref),
        children: node.childIds.map((child) => {
          const childNode = tree.byId.get(child)!;
          return { ...ref(childNode), level: childNode.level };
        }),
        productCount: count,
      };
    },
  );

  productsRoute(app, deps, {
    url: '/category/:id/products',
    tags: ['categories'],
    summary: 'Products of the category and its subcategories, priced for the caller',
    params: IdParams,
    querystring: SortedPagingQuery,
    defaultSort: 'newest',
    filter: async ({ params }, context) => {
      const tree = await treeOf(context);
      return { categoryIds: tree.subtreeIds(nodeOf(tree, params.id).id) };
    },
  });
};
