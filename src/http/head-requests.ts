import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';

// Fastify answers HEAD for every GET route by running the GET's handler and dropping the body. Link
// checkers, mail scanners, previews and prefetchers send HEADs, and RFC 9110 makes HEAD safe: it may
// change nothing. A GET that changes something says so (`config.getWrites`) and its HEAD is answered
// here without the handler; a route that can tell cheaply what its GET would answer registers a HEAD
// of its own instead (`exposeHeadRoute: false` and `app.head`, as /bank/create-form and
// /direct-download do, running the GET's checks in a transaction rolled back).

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What a GET of the route changes (a flow started, a one-time state spent, something counted).
     * Its HEAD runs the route's hooks and validation, so it is refused as the GET would be (a 400,
     * 401, 429), and is otherwise answered 204 without running the handler.
     */
    getWrites?: string;
  }
  interface FastifyInstance {
    /** Every GET route and how its HEAD is answered, as registered (the HEAD sweep walks them). */
    readonly getRoutes: readonly GetRoute[];
  }
}

export interface GetRoute {
  url: string;
  /**
   * `handler`: Fastify's HEAD, the GET's handler (a GET that changes nothing); `own`: the route
   * registers its own HEAD (or none); `without-effect`: answered here, 204, handler not run.
   */
  head: 'handler' | 'own' | 'without-effect';
  /** The route's `getWrites`, when it says what its GET changes. */
  writes?: string;
}

/** Registered on the root before any route, so that every plugin's routes pass through it. */
export function registerHeadRequests(app: FastifyInstance): void {
  const routes: GetRoute[] = [];
  app.decorate('getRoutes', routes);
  app.addHook('onRoute', (route: RouteOptions) => {
    const writes = route.config?.getWrites;
    const methods = [route.method].flat();
    if (methods.includes('GET')) {
      const head = route.exposeHeadRoute === false ? 'own' : writes === undefined ? 'handler' : 'without-effect';
      routes.push({ url: route.url, head, ...(writes === undefined ? {} : { writes }) });
    }
    // Fastify's own HEAD of a GET: its HEAD hook sets the length of the body the GET would send, which
    // a 304 (http-cache.ts, If-None-Match) must not carry unlike the GET's 304 (RFC 9110 8.6): taken off after it.
    if (writes === undefined && route.method === 'HEAD')
      route.onSend = [...[route.onSend ?? []].flat(), noLengthOn304] as RouteOptions['onSend'];
    if (writes === undefined || !methods.includes('HEAD')) return;
    // A HEAD listed with other methods would share their handler: it could not be answered alone.
    if (route.method !== 'HEAD') throw new Error(`${route.url}: a route whose GET writes must not list HEAD among its methods`);
    route.handler = answerWithoutEffect;
    // After Fastify's own HEAD hook, which sets the length of the body a GET would send: a 204 has none (RFC 9110 8.6).
    route.onSend = [...[route.onSend ?? []].flat(), withoutLength] as RouteOptions['onSend'];
  });
}

function noLengthOn304(_request: unknown, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (reply.statusCode === 304) reply.removeHeader('content-length');
  done(null, payload);
}

function withoutLength(_request: unknown, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  reply.removeHeader('content-length');
  done(null, payload);
}

/**
 * 204: nothing to show and nothing done. What the GET would answer is not known without doing its
 * work (a 302 to where a flow it starts leads, a token it takes); `no-store`, so that no cache keeps
 * this for the GET's answer.
 */
async function answerWithoutEffect(_request: unknown, reply: FastifyReply): Promise<void> {
  await reply.code(204).header('Cache-Control', 'no-store').send();
}
