// A client an integrator would write from /v1/openapi.json: types by openapi-typescript (api.d.ts,
// generated beside this file by the test), calls by openapi-fetch. Compiled strictly with no casts,
// then run against a live service: dry-runs a raw XML feed and a RESO collection, pushes a feed,
// polls it, searches, and lists feeds as an operator. Prints one JSON line of what it saw.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [baseUrl, feedKey, operatorToken, xml] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl });
const asText = (body: unknown) => String(body);

const dryRunXml = await client.POST('/v1/validate', {
  params: { query: { currency: 'AUD' } },
  body: xml,
  bodySerializer: asText,
  headers: { 'content-type': 'application/xml' },
});
const dryRunReso = await client.POST('/v1/validate', {
  params: { query: { format: 'reso', currency: 'AUD' } },
  body: {
    value: [
      {
        ListingKey: 'R1',
        ListOfficeKey: 'OFF1',
        StandardStatus: 'Active',
        PropertyType: 'Residential',
        ModificationTimestamp: '2024-05-01T00:00:00Z',
        City: 'Richmond',
        StateOrProvince: 'VIC',
        PostalCode: '3121',
      },
    ],
  },
});
const pushed = await client.POST('/v1/feeds', {
  params: { query: { currency: 'AUD' } },
  body: xml,
  bodySerializer: asText,
  headers: { 'content-type': 'application/xml', authorization: `Bearer ${feedKey}` },
});
const feedId = pushed.data?.feedId ?? '';
const polled = await client.GET('/v1/feeds/{feedId}', { params: { path: { feedId } }, headers: { authorization: `Bearer ${feedKey}` } });
const found = await client.GET('/v1/listings', { params: { query: { office: 'OFF1', limit: 5 } } });
const feeds = await client.GET('/v1/admin/feeds', { params: { query: { limit: 5 } }, headers: { authorization: `Bearer ${operatorToken}` } });

console.log(
  JSON.stringify({
    dryRunXml: dryRunXml.data?.counts.valid,
    dryRunReso: dryRunReso.data?.counts.parsed,
    // 200 (done within the wait) carries the result; 202 only the status URL.
    pushed: pushed.data && 'summary' in pushed.data ? pushed.data.summary.inserted : null,
    polled: polled.data?.status,
    found: found.data?.listings.map((listing) => listing.uniqueId),
    nextOffset: found.data?.nextOffset,
    outcomes: feeds.data?.feeds.map((feed) => feed.outcome),
  }),
);
