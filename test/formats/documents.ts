import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../helpers.js';

/** RESO Property records in the shapes real MLS exports send (test/fixtures/reso/README.md). */
export const MLS_EXPORTS = readFileSync(resolve(repoRoot, 'test/fixtures/reso/mls-exports.json'), 'utf8');

/** RESO records and project documents the format tests build on. */

/** A valid Australian RESO record; fields override. */
export function resoRecord(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@odata.id': "https://api.example.com/Property('a1')",
    ListingKey: 'a1',
    ListOfficeKey: 'OFF1',
    StandardStatus: 'Active',
    PropertyType: 'Residential',
    PropertySubType: 'Townhouse',
    ListPrice: 1250000,
    UnparsedAddress: '12/34 Example St, Parramatta NSW 2150',
    City: 'Parramatta',
    StateOrProvince: 'NSW',
    PostalCode: '2150',
    Country: 'AU',
    ModificationTimestamp: '2024-05-01T03:04:05.06Z',
    PublicRemarks: 'Light-filled townhouse.',
    ...fields,
  };
}

/** A valid project document; project fields override. */
export function projectDoc(fields: Record<string, unknown> = {}, more: Record<string, unknown>[] = []): { projects: Record<string, unknown>[] } {
  return {
    projects: [
      {
        uniqueId: 'HV',
        office: 'OFF1',
        modTime: '2026-11-01T09:00:00',
        name: 'Harbour View',
        developer: 'Example Developments',
        stage: 'off_the_plan',
        completionDate: '2028-06',
        address: { street: 'Harbour Street', streetNumber: '10', locality: 'Pyrmont', region: 'NSW', postcode: '2009' },
        description: 'Forty apartments.',
        media: [
          { url: 'https://cdn.example/hv/a.jpg' },
          { url: 'https://cdn.example/hv/hero.jpg', hero: true },
          { url: 'https://cdn.example/hv/plan.pdf', kind: 'document' },
        ],
        listings: [
          { uniqueId: 'HV-101', bedrooms: 1, bathrooms: 1, price: 750000, headline: 'One bedroom' },
          { uniqueId: 'HV-502', bedrooms: 3, bathrooms: 2, price: 2100000, buildingAreaSqm: 128, status: 'under_offer' },
          { uniqueId: 'HV-R1', category: 'rental', price: 900, address: { locality: 'Ultimo', region: 'NSW', postcode: '2007', lat: -33.88, lng: 151.2 } },
        ],
        ...fields,
      },
      ...more,
    ],
  };
}
