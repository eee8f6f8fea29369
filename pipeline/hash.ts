import { hash } from 'node:crypto';
import { canonicalJson, type Shape, shape } from './canonical-json.js';

/** Bookkeeping that does not make a listing different: a re-sent, otherwise identical record is unchanged. */
const EXCLUDED: ReadonlySet<string> = new Set(['modTime', 'contentHash', 'hidden']);

const PRICE = shape(['amount', 'currency', 'display', 'text']);
const RENT = shape(['amount', 'currency', 'period', 'display', 'text']);

/** A canonical listing's content and what it holds, so its serialisation sorts nothing (pipeline/types.ts). */
const LISTING: Shape = shape(
  [
    'listingKey',
    'office',
    'uniqueId',
    'format',
    'category',
    'subCategory',
    'saleMode',
    'bothPrices',
    'status',
    'price',
    'rent',
    'sold',
    'bond',
    'bedrooms',
    'bathrooms',
    'features',
    'landAreaSqm',
    'buildingAreaSqm',
    'address',
    'location',
    'media',
    'agents',
    'headline',
    'description',
    'auction',
    'dateAvailable',
    'inspections',
    'links',
    'projectKey',
  ],
  {
    price: PRICE,
    rent: RENT,
    sold: shape(['price', 'date'], { price: PRICE }),
    address: shape(['country', 'region', 'locality', 'postcode', 'street', 'streetNumber', 'subNumber', 'lotNumber', 'display']),
    location: shape(['lat', 'lng', 'precision', 'source']),
    media: shape(['url', 'kind', 'order', 'hero', 'slot', 'title']),
    agents: shape(['name', 'email', 'phones', 'sourceAgentId', 'slot'], { phones: shape(['type', 'number']) }),
    auction: shape(['date']),
    links: shape(['kind', 'url']),
  },
);

/**
 * sha256 (hex) of the canonical content: JSON with keys in sorted order at every level, modTime and
 * bookkeeping left out, so the same content always gives the same digest whatever order its
 * objects hold their keys in (a record read back from the database included).
 */
export function contentHash(listing: object): string {
  return hash('sha256', canonicalJson(listing, LISTING, EXCLUDED), 'hex');
}
