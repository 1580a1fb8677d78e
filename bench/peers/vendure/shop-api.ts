// The Shop API questions bench/peer-vendure.ts asks Vendure, as GET requests (Apollo answers GET
// queries; Vendure leaves csrfPrevention off), so the project's load helpers, which vary only the
// path, can send them. Each asks for about what the service's matching answer holds: a product page
// (name, description, price, stock, categories), a list page of 20 product cards with the total.
// Plain fetch only: nothing here imports the peer's node_modules.

const CARD =
  'productId productName slug productAsset { preview } priceWithTax { ...on SinglePrice { value } ...on PriceRange { min max } } currencyCode';

export const PEER_QUERIES = {
  product: `query ($slug: String!) { product(slug: $slug) { id name slug description featuredAsset { preview }
    facetValues { code name facet { code } } collections { slug name }
    variants { id sku name priceWithTax currencyCode stockLevel } } }`,
  category: `query ($slug: String!) { collection(slug: $slug) { id name slug breadcrumbs { name slug } children { name slug } }
    search(input: { collectionSlug: $slug, take: 20, groupByProduct: true }) { totalItems items { ${CARD} } } }`,
  search: `query ($term: String!) { search(input: { term: $term, take: 20, groupByProduct: true }) { totalItems items { ${CARD} } } }`,
} as const;

/** The Shop API path of a GET query with its variables. */
export function shopApiPath(query: string, variables: Record<string, string>): string {
  const compact = query.replace(/\s+/g, ' ').trim();
  return `/shop-api?query=${encodeURIComponent(compact)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
}

export interface PeerProbe {
  name: string;
  /** What the service answered: status and products found. */
  service: string;
  peer: string;
}

/**
 * One request to each server before the load: both must answer 200 with data (a GraphQL error comes
 * with a 200 and would otherwise pass as a fast success), and the counts show they found the same.
 */
export async function probeBoth(
  name: string,
  serviceUrl: string,
  servicePaths: string[],
  peerUrl: string,
  peerPaths: string[],
): Promise<PeerProbe> {
  const own = await fetch(`${serviceUrl}${servicePaths[0]}`);
  const ownBody = (await own.json()) as unknown;
  if (own.status !== 200) throw new Error(`${name}: the service answered ${own.status} ${JSON.stringify(ownBody).slice(0, 300)}`);
  const total = own.headers.get('x-pagination-total-count');
  const theirs = await fetch(`${peerUrl}${peerPaths[0]}`);
  const body = (await theirs.json()) as { data?: Record<string, unknown> | null; errors?: unknown[] };
  const empty = !body.data || Object.values(body.data).some((value) => value === null);
  if (theirs.status !== 200 || body.errors || empty)
    throw new Error(`${name}: Vendure answered ${theirs.status} ${JSON.stringify(body).slice(0, 500)}`);
  const search = body.data?.search as { totalItems: number; items: unknown[] } | undefined;
  return {
    name,
    service: total === null ? `200, ${Buffer.byteLength(JSON.stringify(ownBody))} bytes` : `${total} products`,
    peer: search === undefined ? `200, ${Buffer.byteLength(JSON.stringify(body))} bytes` : `${search.totalItems} products`,
  };
}
