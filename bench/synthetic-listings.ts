import type { Knex } from 'knex';

/**
 * How long the database handle that loads the synthetic listings may let one statement run: a batch of 100,000 into
 * a large, indexed table, or the VACUUM after, outlasts the service's 30 s on a slow machine.
 */
export const LOAD_TIMEOUT_MS = 30 * 60_000;

/**
 * Rows made by PostgreSQL itself: countries AU 70% / NZ 15% / GB 10% / US 5%; 2,000 offices with
 * ten agents each, each office in about five of 3,000 localities (5 km apart, each listing within
 * about 1 km of its locality's centre: some 80 listings a km², a busy suburb's density); residential 55%, rental 25%, land 8%, commercial 7%, rural 5%; 90% active or
 * under offer, the rest sold, leased or withdrawn; 1% hidden; two years of modTimes.
 */
export async function loadSyntheticListings(db: Knex, n: number, options: { quiet?: boolean } = {}): Promise<void> {
  const step = 100_000;
  for (let from = 0; from < n; from += step) {
    await db.raw(
      `WITH g AS (
         SELECT i, (i % 2000) AS o, abs(hashint4(i)) AS h, abs(hashint4(i * 7 + 1)) AS h2 FROM generate_series(?::int, ?::int) AS i
       ), w AS (
         SELECT i, o, 'OFF' || o AS office, 'L' || i AS uid, h, h2, (o * 3 + (h2 / 7) % 5) % 3000 AS lx,
           CASE WHEN h % 100 < 70 THEN 'AU' WHEN h % 100 < 85 THEN 'NZ' WHEN h % 100 < 95 THEN 'GB' ELSE 'US' END AS country,
           CASE WHEN h2 % 100 < 55 THEN 'residential' WHEN h2 % 100 < 80 THEN 'rental' WHEN h2 % 100 < 88 THEN 'land' WHEN h2 % 100 < 95 THEN 'commercial' ELSE 'rural' END AS category,
           CASE WHEN h % 1000 < 850 THEN 'active' WHEN h % 1000 < 900 THEN 'under_offer' WHEN h % 1000 < 950 THEN 'sold' WHEN h % 1000 < 980 THEN 'leased' ELSE 'withdrawn' END AS status,
           (h2 % 1000) < 10 AS hidden,
           timestamptz '2024-01-01' + ((h % 63072000) || ' seconds')::interval AS mod_time
         FROM g
       ), v AS (
         SELECT *,
           -- each office works a handful of neighbouring localities out of 3,000
           (ARRAY['Richmond','Bondi','Glenelg','Fremantle','Ponsonby','Camden','Brooklyn','Fitzroy','Newtown','Paddington',
                  'Carlton','Manly','Norwood','Subiaco','Parnell','Hackney','Queens','Kew','Balmain','Toorak'])[1 + lx % 20] || ' ' || (lx / 20) AS locality
         FROM w
       )
       INSERT INTO listings (listing_key, office, unique_id, format, status, mod_time, content_hash, hidden, data)
       SELECT office || '/' || uid, office, uid, 'reaxml', status, mod_time, md5(uid), hidden,
         jsonb_build_object(
           'listingKey', office || '/' || uid, 'office', office, 'uniqueId', uid, 'format', 'reaxml', 'category', category,
           'saleMode', CASE WHEN category = 'rental' THEN 'rent' ELSE 'sale' END, 'status', status,
           'modTime', to_char(mod_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
           'price', CASE WHEN category = 'rental' THEN NULL ELSE jsonb_build_object('amount', 200000 + (h2 % 2800) * 1000, 'currency', 'AUD', 'display', true, 'text', NULL) END,
           'rent', CASE WHEN category = 'rental' THEN jsonb_build_object('amount', 200 + (h2 % 1800), 'currency', 'AUD', 'period', 'week', 'display', true) ELSE NULL END,
           'bedrooms', (h2 / 13) % 7, 'bathrooms', 1 + (h2 / 17) % 3,
           'address', jsonb_build_object('country', country, 'region', NULL, 'locality', locality, 'postcode', lpad(((h / 3) % 9000 + 1000)::text, 4, '0'), 'street', 'Main Road', 'streetNumber', ((h / 5) % 300)::text, 'subNumber', NULL, 'display', true),
           -- localities 5 km apart on a 60 x 50 grid from 144.0 E, 38.5 S; a listing within about 1 km of its locality's centre
           'location', jsonb_build_object('lat', -38.5 + (lx / 60) * 0.05 + ((h % 1000) - 500) / 50000.0,
                                          'lng', 144.0 + (lx % 60) * 0.05 + ((h2 % 1000) - 500) / 50000.0, 'precision', 'locality', 'source', 'bench'),
           'media', jsonb_build_array(jsonb_build_object('url', 'https://img.example.com/' || uid || '/m.jpg', 'kind', 'photo', 'order', 0, 'hero', true, 'slot', 'm')),
           'agents', jsonb_build_array(jsonb_build_object('name', 'Agent ' || o || '-' || (h % 10), 'email', 'agent' || (h % 10) || '@off' || o || '.example', 'phones', '[]'::jsonb, 'sourceAgentId', NULL, 'slot', '1')),
           'headline', jsonb_build_object('en-AU', 'Home ' || uid), 'description', jsonb_build_object('en-AU', 'A synthetic listing for the search benchmark.'),
           'features', '{}'::jsonb, 'inspections', '[]'::jsonb, 'links', '[]'::jsonb, 'projectKey', NULL, 'contentHash', md5(uid)
         )
       FROM v`,
      [from, Math.min(from + step, n) - 1],
    );
    if (!options.quiet) process.stdout.write(`\rloaded ${Math.min(from + step, n)} listings`);
  }
  if (!options.quiet) process.stdout.write('\n');
  await db.raw('VACUUM ANALYZE listings');
}
