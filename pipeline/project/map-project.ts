import { zoneFor } from '../countries.js';
import { resolveCurrency } from '../currency.js';
import { contentHash } from '../hash.js';
import { ListingIssues } from '../issues.js';
import { listingKey } from '../listing-key.js';
import { type MediaSource, numberMedia } from '../number-media.js';
import { parseReaDate } from '../reaxml/dates.js';
import type { CanonicalProject, FeedContext, ListingDelta, MediaItem } from '../types.js';
import { mapProjectAddress } from './project-address.js';
import type { ProjectChildInput, ProjectInput, ProjectMediaInput } from './project-schema.js';

/** Document media in order, the flagged hero (else the first photo) first among photos. */
export function mapProjectMedia(input: ProjectMediaInput[] | undefined): MediaItem[] {
  const given = input ?? [];
  const items: MediaSource[] = given.map((m, i) => ({ url: m.url, kind: m.kind, slot: String(i), ...(m.title ? { title: m.title } : {}) }));
  const of = (kind: MediaItem['kind']) => items.filter((m) => m.kind === kind);
  const photos = of('photo');
  const flagged = given.findIndex((m) => m.kind === 'photo' && m.hero);
  return numberMedia(photos, of('floorplan'), of('document'), flagged >= 0 ? items[flagged] : photos[0]);
}

function readModTime(raw: string, zone: string, issues: ListingIssues, path: string): string | null {
  const read = parseReaDate(raw, zone);
  if (read.ok) return read.value;
  issues.error('invalid_mod_time', `modTime "${raw}" is not an ISO-8601 date-time`, path);
  return null;
}

const text = (locale: string, value: string | undefined) => (value?.trim() ? { [locale]: value.trim() } : null);

/** Everything of a project except its children's keys and its hash; null when it cannot be stored. */
export type ProjectDraft = Omit<CanonicalProject, 'contentHash'>;

/** The project record (docs/architecture.md, Formats and mapping); the price range is completed from `childPrices` where the document leaves it out. */
export function mapProject(
  input: ProjectInput,
  office: string,
  feed: FeedContext,
  issues: ListingIssues,
  path: string,
  childPrices: number[],
): ProjectDraft | null {
  const { address, location } = mapProjectAddress(input.address, feed, issues, `${path}/address`);
  const modTime = readModTime(input.modTime, zoneFor(address.country, address.region), issues, `${path}/modTime`);
  const currency = resolveCurrency(feed, address.country, issues, path);
  if (input.priceFrom !== undefined && input.priceTo !== undefined && input.priceFrom > input.priceTo) {
    issues.error('invalid_price_range', `priceFrom ${input.priceFrom} is above priceTo ${input.priceTo}`, `${path}/priceFrom`);
  }
  if (!modTime || issues.hasErrors) return null;
  const from = input.priceFrom ?? (childPrices.length ? Math.min(...childPrices) : null);
  const to = input.priceTo ?? (childPrices.length ? Math.max(...childPrices) : null);
  const developer =
    input.developer === undefined
      ? null
      : typeof input.developer === 'string'
        ? { name: input.developer, websiteUrl: null, logoUrl: null }
        : { name: input.developer.name, websiteUrl: input.developer.websiteUrl ?? null, logoUrl: input.developer.logoUrl ?? null };
  return {
    projectKey: listingKey(office, input.uniqueId),
    office,
    uniqueId: input.uniqueId,
    format: 'project',
    status: 'active',
    modTime,
    name: input.name.trim(),
    developer,
    stage: input.stage,
    priceRange: from === null && to === null ? null : { from, to, currency, derived: input.priceFrom === undefined || input.priceTo === undefined },
    completionDate: input.completionDate ?? null,
    address,
    location,
    headline: text(feed.sourceLocale, input.headline),
    description: text(feed.sourceLocale, input.description),
    media: mapProjectMedia(input.media),
    listingKeys: input.listings.map((c) => listingKey(office, c.uniqueId)),
  };
}

export function finishProject(draft: ProjectDraft): CanonicalProject {
  return { ...draft, contentHash: contentHash(draft) };
}

/**
 * A child listing as a whole canonical record linked by projectKey: the project's office, and its
 * address and modTime unless the child gives its own. Null when it cannot be stored.
 */
export function mapProjectChild(
  child: ProjectChildInput,
  project: ProjectInput,
  office: string,
  feed: FeedContext,
  issues: ListingIssues,
  path: string,
): ListingDelta | null {
  issues.stampUniqueId(child.uniqueId);
  // An inherited address was reported on the project already; its issues are not repeated here.
  const { address, location } = child.address
    ? mapProjectAddress(child.address, feed, issues, `${path}/address`)
    : mapProjectAddress(project.address, feed, new ListingIssues(null), path);
  const zone = zoneFor(address.country, address.region);
  const modTime = child.modTime
    ? readModTime(child.modTime, zone, issues, `${path}/modTime`)
    : readModTime(project.modTime, zone, new ListingIssues(null), path);
  if (!modTime) return null;
  const currency = resolveCurrency(feed, address.country, issues, path);
  const saleMode = child.saleMode ?? (child.category === 'rental' || child.category === 'holidayRental' ? 'rent' : 'sale');
  const amount = child.price ?? null;
  return {
    office,
    uniqueId: child.uniqueId,
    format: 'project',
    category: child.category,
    modTime,
    status: child.status,
    saleMode,
    subCategory: null,
    price: saleMode === 'sale' && amount ? { amount, currency, display: true, text: null } : null,
    rent: saleMode === 'rent' && amount ? { amount, currency, period: child.rentPeriod, display: true, text: null } : null,
    sold: null,
    bedrooms: child.bedrooms ?? null,
    bathrooms: child.bathrooms ?? null,
    buildingAreaSqm: child.buildingAreaSqm ?? null,
    landAreaSqm: child.landAreaSqm ?? null,
    features: {},
    address,
    location,
    headline: text(feed.sourceLocale, child.headline) ?? text(feed.sourceLocale, project.name),
    description: text(feed.sourceLocale, child.description),
    links: [],
    replace: { media: mapProjectMedia(child.media ?? project.media), agents: [] },
    projectKey: listingKey(office, project.uniqueId),
  };
}
