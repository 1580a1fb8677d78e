import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';

// Routes that take no body (logout, a basket's clear and merge, a wishlist or rating removal...)
// called with `Content-Type: application/json` and nothing in it: a front-end's API client that
// sets that header on every request does this. Fastify's JSON parser refuses an empty body, so
// every such call was a 400 "the request body is empty; send a JSON object" for a body the route
// never asked for. For those routes an empty JSON body is no body; a route that takes one still
// refuses it, and a body-less route still refuses a body that is not JSON.

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const isJson = (contentType: string) => /^\s*application\/json\s*(;|$)/i.test(contentType);

const forgetEmptyJsonBody: onRequestHookHandler = (request, _reply, done) => {
  const headers = request.headers;
  const contentType = headers['content-type'];
  const empty =
    headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
  // Without a content type Fastify reads no parser for an empty body (handle-request.js).
  if (empty && contentType !== undefined && isJson(contentType)) delete headers['content-type'];
  done();
};

function tolerateOnRoute(route: RouteOptions): void {
  if (route.schema?.body !== undefined) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((method) => BODY_METHODS.has(method))) return;
  const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [forgetEmptyJsonBody, ...existing] as RouteOptions['onRequest'];
}

/** Routes registered after this take an empty JSON body as none when they declare no body (see above). */
export function registerEmptyJsonBodyTolerance(app: FastifyInstance): void {
  app.addHook('onRoute', tolerateOnRoute);
}
