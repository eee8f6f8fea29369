/**
 * The portal search families of issue 30 (bench/search on PostgreSQL, bench/search-embedded on
 * PGlite), for the synthetic listings of bench/synthetic-listings.ts. `plain` ones have a
 * throughput target beside the baseline on PostgreSQL.
 */
export interface SearchFamily {
  name: string;
  path: string;
  plain: boolean;
}

export const FAMILIES: readonly SearchFamily[] = [
  { name: 'locality', path: '/v1/listings?locality=Richmond%207,Bondi%2012&limit=24', plain: true },
  { name: 'keyword', path: '/v1/listings?q=L123456%20OR%20L777&limit=24', plain: false },
  // common words: "home" is in every synthetic headline, "synthetic listing" in every description
  { name: 'keyword relevance, common', path: '/v1/listings?q=home&sort=relevance&limit=24', plain: false },
  { name: 'keyword relevance, in text', path: '/v1/listings?q=synthetic%20listing&sort=relevance&limit=24', plain: false },
  { name: 'keyword newest, common', path: '/v1/listings?q=home&limit=24', plain: false },
  // a map of four suburbs (about 9 x 11 km), and 2 km around one suburb's centre
  { name: 'bbox', path: '/v1/listings?bbox=144.875,-37.825,144.975,-37.725&limit=24', plain: false },
  { name: 'radius, distance sort', path: '/v1/listings?near=-37.80,144.90&radiusKm=2&sort=distance&limit=24', plain: false },
  { name: 'price sort', path: '/v1/listings?sort=price&saleMode=sale&limit=24', plain: true },
  { name: 'price sort, highest first', path: '/v1/listings?sort=-price&saleMode=sale&limit=24', plain: true },
  { name: 'facets', path: '/v1/listings?locality=Richmond%207&facets=category,bedrooms,priceBand,status&limit=24', plain: false },
];

/** The path of the 50th page of 24, newest first, walked by cursor from the first (the "cursor page 50" family). */
export async function cursorPage50(baseUrl: string): Promise<string> {
  let path = '/v1/listings?limit=24';
  for (let page = 1; page < 50; page += 1) {
    const res = await fetch(`${baseUrl}${path}`);
    const { next } = (await res.json()) as { next: string | null };
    if (res.status !== 200 || !next) throw new Error(`page ${page} of the cursor walk answered ${res.status} without a next cursor`);
    path = `/v1/listings?limit=24&cursor=${encodeURIComponent(next)}`;
  }
  return path;
}
