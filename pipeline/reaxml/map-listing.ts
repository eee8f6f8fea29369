import { officeIdProblem } from '../../lib/office-id.js';
import { zoneFor } from '../countries.js';
import { resolveCurrency } from '../currency.js';
import { detached } from '../detached-string.js';
import { ListingIssues } from '../issues.js';
import { hasMarkup, MARKUP_MAX_DEPTH, needsReading, plainText, sanitizedHtml } from '../listing-text.js';
import { capDeltaText, cut, TEXT_LIMITS } from '../text-limits.js';
import type { Category, FeedContext, ListingDelta, Status } from '../types.js';
import { attr, child, childText, type XmlNode } from '../xml-node.js';
import { hasExplicitOffset } from './dates.js';
import { mapAddress, mapLocation } from './map-address.js';
import { mapAgents } from './map-agents.js';
import { type MapContext, readDate } from './map-context.js';
import { mapExtras } from './map-extras.js';
import { mapAreas, mapFeatures, mapRooms } from './map-features.js';
import { mapLinks } from './map-links.js';
import { mapMedia } from './map-media.js';
import { mapBond, mapPrice, mapRent, mapSold } from './map-money.js';
import { mapTimes } from './map-times.js';
import { isPlaceholderText, readBoolean } from './values.js';

const STATUSES: Readonly<Record<string, Status>> = {
  current: 'active',
  sold: 'sold',
  leased: 'leased',
  withdrawn: 'withdrawn',
  offmarket: 'off_market',
  off_market: 'off_market',
  deleted: 'archived',
};

/** The kinds that sell or lease commercially: commercialListingType and commercialRent apply. */
const COMMERCIAL_KINDS: ReadonlySet<string> = new Set(['commercial', 'commercialLand', 'business']);

const SUBCATEGORY_ELEMENTS = ['category', 'ruralCategory', 'landCategory', 'commercialCategory', 'holidayCategory'];

export interface MappedListing {
  /** The listing's identity when it has one, even if the record is otherwise unusable. */
  identity: { office: string; uniqueId: string } | null;
  /** null when the record cannot even be identified or dated. */
  delta: ListingDelta | null;
  issues: ListingIssues;
}

/**
 * An identity element, by its REAXML name or, failing that, by a common other spelling (agentId,
 * AgentID, uniqueId, UNIQUEID: any case). One that holds elements is no value, so it identifies
 * nothing (`nested`); `respelled` is the element when it was found under another spelling.
 */
function identityText(node: XmlNode, name: string): { text?: string; nested?: XmlNode; respelled?: XmlNode } {
  let el = child(node, name);
  let respelled: XmlNode | undefined;
  if (el === undefined) {
    const lower = name.toLowerCase();
    el = node.children.find((c) => c.name.length === lower.length && c.name.toLowerCase() === lower);
    if (el === undefined) return {};
    respelled = el;
  }
  if (el.children.length > 0) return { nested: el, respelled };
  return { text: el.text.trim() || undefined, respelled };
}

/** Where the agentID is, under the spelling the feed used. */
function officeIdPath(node: XmlNode): string {
  return (child(node, 'agentID') ?? node.children.find((c) => c.name.toLowerCase() === 'agentid'))?.path ?? `${node.path}/agentID`;
}

/**
 * The listing's identity, read the same way for ingestion's scope check (when the listing is read)
 * and for what is stored (when it is mapped): the context's office overrides agentID; empty values are absent; an
 * agentID or uniqueID with an element inside is no identity at all (`nested` names it).
 * `identity` is set when both parts are there and readable.
 */
export function readIdentity(
  node: XmlNode,
  feed: FeedContext,
): {
  office?: string;
  uniqueId?: string;
  nested: XmlNode[];
  respelled: XmlNode[];
  /** Why the agentID is not an office id (lib/office-id.ts), when it is not one. */
  officeProblem?: string;
  identity: { office: string; uniqueId: string } | null;
} {
  const agent = identityText(node, 'agentID');
  const unique = identityText(node, 'uniqueID');
  const nested = [...(feed.sourceOfficeId ? [] : [agent.nested]), unique.nested].filter((n): n is XmlNode => n !== undefined);
  const respelled = [...(feed.sourceOfficeId ? [] : [agent.respelled]), unique.respelled].filter((n): n is XmlNode => n !== undefined);
  // Detached from the feed's text: the keys made of them are kept until the feed is done.
  const office = feed.sourceOfficeId ?? (agent.text === undefined ? undefined : detached(agent.text));
  const uniqueId = unique.text === undefined ? undefined : detached(unique.text);
  // An agentID that is no office id (`AGENT B`) can never be stored: no feed may push for it.
  const officeProblem = office === undefined || feed.sourceOfficeId ? null : officeIdProblem(office);
  const identity = office && uniqueId && nested.length === 0 && !officeProblem ? { office, uniqueId } : null;
  return { office, uniqueId, nested, respelled, ...(officeProblem ? { officeProblem } : {}), identity };
}

/**
 * The most of a headline's or description's text the HTML readers take (docs/security.md, Text the
 * parsers read): five times what is kept, for the room markup and entities take. They are linear
 * (about 1 to 3 µs a character at worst), so this bounds how long one field can hold the process.
 */
const READ_LIMITS = { headline: 5 * TEXT_LIMITS.headline, description: 5 * TEXT_LIMITS.description } as const;

/** A headline's or description's text as the HTML readers take it: cut at its read limit when it has markup to read (with a warning). */
function markupSource(ctx: MapContext, textNode: XmlNode, limit: number): string {
  const text = textNode.text.trim();
  if (text.length <= limit || !needsReading(text)) return text;
  ctx.issues.warning('text_truncated', `${textNode.name} is ${text.length} characters long with markup; the first ${limit} are read`, textNode.path);
  return cut(text, limit);
}

/** headline or description (its source): plain text in the feed's locale; null when empty or template text (with a warning). */
function localisedText(ctx: MapContext, textNode: XmlNode, source: string): Record<string, string> | null {
  const text = plainText(source, () =>
    ctx.issues.warning(
      'text_truncated',
      `${textNode.name} nests its markup more than ${MARKUP_MAX_DEPTH} elements deep; what lies deeper is left out`,
      textNode.path,
    ),
  );
  if (isPlaceholderText(text)) {
    ctx.issues.warning('placeholder_text', `${textNode.name} "${text}" is template text; not kept`, textNode.path);
    return null;
  }
  if (!text) return null;
  const localised: Record<string, string> = {};
  localised[ctx.feed.sourceLocale] = text;
  return localised;
}

/** Identity problems as issues: respelled or nested identity elements, a missing uniqueID or agentID, an agentID that is no office id. */
function reportIdentity(node: XmlNode, read: ReturnType<typeof readIdentity>, issues: ListingIssues): void {
  const { uniqueId, office, nested, respelled } = read;
  for (const el of respelled) {
    const name = el.name.toLowerCase() === 'agentid' ? 'agentID' : 'uniqueID';
    issues.warning('identity_spelling', `<${el.name}> read as <${name}> (REAXML spells it ${name})`, el.path);
  }
  for (const el of nested) {
    issues.error('invalid_identity', `${el.name} must hold only text; it contains the element ${el.children[0].name}`, el.path);
  }
  if (uniqueId) issues.stampUniqueId(uniqueId);
  else if (!nested.some((el) => el.name.toLowerCase() === 'uniqueid')) issues.error('missing_unique_id', 'listing has no uniqueID', `${node.path}/uniqueID`);

  if (!office && !nested.some((el) => el.name.toLowerCase() === 'agentid'))
    issues.error('missing_office_id', 'listing has no agentID and the context gives no sourceOfficeId', `${node.path}/agentID`);
  if (read.officeProblem) issues.error('invalid_office_id', `agentID ${read.officeProblem}; not stored`, officeIdPath(node));
}

/** The status attribute (current under offer when underOffer says yes); undefined, with an error, when missing or unknown. */
function readStatus(node: XmlNode, issues: ListingIssues): Status | undefined {
  const rawStatus = attr(node, 'status');
  let status: Status | undefined;
  if (rawStatus === undefined || rawStatus.trim() === '') {
    issues.error('missing_status', 'listing has no status attribute', `${node.path}/@status`);
  } else {
    status = STATUSES[rawStatus.trim().toLowerCase()];
    if (!status) issues.error('unknown_status', `status "${rawStatus}" is not current, sold, leased, withdrawn, offmarket or deleted`, `${node.path}/@status`);
  }
  const underOfferNode = child(node, 'underOffer');
  if (status === 'active' && underOfferNode) {
    const raw = attr(underOfferNode, 'value') ?? underOfferNode.text;
    const flag = readBoolean(raw);
    if (flag === undefined) issues.warning('invalid_boolean', `underOffer value "${raw}" is not yes or no; ignored`, underOfferNode.path);
    if (flag) status = 'under_offer';
  }
  return status;
}

/** The modTime attribute as an instant; null, with an error, when missing or not a date (such a listing cannot be ordered against stored versions). */
function readModTime(ctx: MapContext, node: XmlNode, rawModTime: string | undefined): string | null {
  const { issues } = ctx;
  if (rawModTime === undefined || rawModTime.trim() === '') {
    issues.error('missing_mod_time', rawModTime === undefined ? 'listing has no modTime attribute' : 'the modTime attribute is empty', `${node.path}/@modTime`);
    return null;
  }
  const before = issues.list.length;
  const modTime = readDate(ctx, rawModTime, `${node.path}/@modTime`, 'modTime');
  if (modTime === null) {
    const dropped = issues.list.splice(before);
    issues.error(
      'invalid_mod_time',
      dropped[0]?.message.replace('; treated as no date', '') ?? `modTime "${rawModTime}" is not a date`,
      `${node.path}/@modTime`,
    );
  }
  return modTime;
}

/**
 * Sale or rent, and the sub-category. Rentals rent; commercial, commercialLand and (where a CRM
 * sends it) business sell, lease or both by commercialListingType (absent leaves the stored sale
 * mode; a new listing is for sale); everything else sells.
 */
function mapKind(node: XmlNode, category: Category, delta: ListingDelta, issues: ListingIssues): void {
  if (category === 'rental' || category === 'holidayRental') delta.saleMode = 'rent';
  else if (COMMERCIAL_KINDS.has(category)) {
    const type = child(node, 'commercialListingType');
    const value = type ? (attr(type, 'value') ?? type.text).trim().toLowerCase() : undefined;
    if (value === 'lease') delta.saleMode = 'rent';
    else if (value === 'sale') delta.saleMode = 'sale';
    else if (value === 'both') Object.assign(delta, { saleMode: 'sale', bothPrices: true });
    else if (value !== undefined && value !== '')
      issues.warning('unknown_listing_type', `commercialListingType "${value}" is not sale, lease or both; not read`, type!.path);
    else if (category === 'business') delta.saleMode = 'sale';
  } else delta.saleMode = 'sale';

  for (const name of SUBCATEGORY_ELEMENTS) {
    const sub = child(node, name);
    if (sub) {
      delta.subCategory = (attr(sub, 'name') ?? sub.text).trim() || null;
      break;
    }
  }
  const business = child(node, 'businessCategory');
  if (business) delta.subCategory = childText(business, 'name') || null;
}

/** Price, rent (a rental's price is its weekly rent when it has no rent element), sold price and bond. */
function mapMoney(ctx: MapContext, node: XmlNode, category: Category, delta: ListingDelta): void {
  const commercialKind = COMMERCIAL_KINDS.has(category);
  const price = mapPrice(ctx, node);
  if (delta.saleMode === 'rent' && !commercialKind) {
    const rent = mapRent(ctx, node);
    if (rent) delta.rent = rent;
    else if (price) delta.rent = { amount: price.amount, currency: ctx.currency, period: 'week', display: price.display, text: price.text };
  } else {
    if (price !== undefined) delta.price = price;
    if (commercialKind) {
      const rent = mapRent(ctx, node, 'commercialRent', 'year');
      if (rent) delta.rent = rent;
    }
  }
  const sold = mapSold(ctx, node);
  if (sold !== undefined) delta.sold = sold;
  const bond = mapBond(ctx, node);
  if (bond !== undefined) delta.bond = bond;
}

/** Bedrooms and bathrooms, features, land and building areas. */
function mapSizes(ctx: MapContext, node: XmlNode, delta: ListingDelta): void {
  const rooms = mapRooms(ctx, node);
  if (rooms) {
    delta.bedrooms = rooms.bedrooms;
    delta.bathrooms = rooms.bathrooms;
  }
  const features = mapFeatures(ctx, node);
  if (features) delta.features = features;
  const areas = mapAreas(ctx, node);
  if (areas.landAreaSqm !== undefined) delta.landAreaSqm = areas.landAreaSqm;
  if (areas.buildingAreaSqm !== undefined) delta.buildingAreaSqm = areas.buildingAreaSqm;
}

/** Headline and description as plain text in the feed's locale, and the description's sanitized HTML when it had markup. */
function mapTexts(ctx: MapContext, node: XmlNode, delta: ListingDelta): void {
  const headline = child(node, 'headline');
  if (headline) delta.headline = localisedText(ctx, headline, markupSource(ctx, headline, READ_LIMITS.headline));
  const description = child(node, 'description');
  if (description) {
    const source = markupSource(ctx, description, READ_LIMITS.description);
    delta.description = localisedText(ctx, description, source);
    if (delta.description && hasMarkup(source)) {
      const html = sanitizedHtml(source);
      if (html) delta.descriptionHtml = { [ctx.feed.sourceLocale]: html };
    }
    delta.descriptionHtml ??= null;
  }
}

/** Maps one REAXML listing element to a canonical delta (docs/architecture.md, The canonical listing and Formats and mapping). Pure. */
export function mapReaxmlListing(
  node: XmlNode,
  index: number,
  feed: FeedContext,
  earlyIssues: ListingIssues = new ListingIssues(index),
  /** The identity as the reader already read it (readIdentity), so it is not read twice. */
  read: ReturnType<typeof readIdentity> = readIdentity(node, feed),
): MappedListing {
  const issues = earlyIssues;
  const category = node.name as Category;
  const { identity } = read;
  reportIdentity(node, read, issues);

  const addressNode = child(node, 'address');
  const address = addressNode ? mapAddress({ feed, issues }, addressNode) : undefined;
  const country = address?.country ?? feed.defaultCountry;
  const zone = zoneFor(country, address?.region);
  const ctx: MapContext = { feed, currency: resolveCurrency(feed, country, issues, node.path), zone, issues };

  const status = readStatus(node, issues);
  const rawModTime = attr(node, 'modTime');
  const modTime = readModTime(ctx, node, rawModTime);
  if (!identity || !status || !modTime) return { identity, delta: null, issues };

  const delta: ListingDelta = { office: identity.office, uniqueId: identity.uniqueId, format: 'reaxml', category, modTime, status };
  if (!addressNode && rawModTime && !hasExplicitOffset(rawModTime)) {
    // A record without an address (a status change, a price change) is read in the feed's default
    // zone here; applied to a stored listing, it is read again in that listing's zone.
    delta.localTimes = { zone, modTime: rawModTime };
    issues.warning(
      'local_time_zone',
      `modTime "${rawModTime.trim()}" has no UTC offset and the record no address: read in ${zone} (the default for ${country}); when it updates a stored listing it is read in that listing's own zone`,
      `${node.path}/@modTime`,
    );
  }
  mapKind(node, category, delta, issues);
  if (address) {
    delta.address = address;
    delta.location = mapLocation(ctx, node, addressNode, address);
  }
  mapMoney(ctx, node, category, delta);
  mapSizes(ctx, node, delta);
  mapTexts(ctx, node, delta);
  mapTimes(ctx, node, delta, country);
  mapLinks(ctx, node, delta);
  Object.assign(delta, mapExtras(ctx, node));

  const media = mapMedia(ctx, node);
  if (media.photos) delta.photos = media.photos;
  if (media.floorplans) delta.floorplans = media.floorplans;
  if (media.documents) delta.documents = media.documents;
  const agents = mapAgents(ctx, node);
  if (agents) delta.agents = agents;
  return { identity, delta: capDeltaText(delta, issues, node.path), issues };
}
