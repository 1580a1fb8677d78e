/** One year, this host and its subdomains; sent only when the service's public URL is https. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * Headers every answer carries, errors and 404s included: the API answers JSON, never content to
 * sniff as HTML or script; it has no reason to tell another site which URL a link was followed
 * from (URLs can hold tokens); and when it is reached over https (PUBLIC_URL), browsers must not
 * fall back to http. The request context's hook sets them on every request (request-context.ts's
 * `fixedHeaders`); a URL Fastify cannot route at all never reaches the hooks (see answerFrameworkError).
 */
export function securityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...(options.https ? { 'Strict-Transport-Security': HSTS } : {}),
  };
}
