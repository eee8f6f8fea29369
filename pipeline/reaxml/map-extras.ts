import type { ListingExtras, Tax } from '../types.js';
import { attr, child, childrenNamed, type XmlNode } from '../xml-node.js';
import { type MapContext, readDate } from './map-context.js';
import { readPriceAmount, readTax } from './map-money.js';
import { readBoolean, readCount, readDecimal } from './values.js';

/**
 * The fields real REAXML feeds carry beyond the core model (sale authority, commercial and
 * business terms, rural features, allowances, location and land details, ratings). Each is set only
 * when the feed gives it, so a delta without it leaves the stored value as it is. Pure.
 */

/** A value from `value="…"` or the element's text. */
const elementValue = (node: XmlNode): string => (attr(node, 'value') ?? node.text).trim();

/** A yes/no element (value attribute or text); undefined with a warning when it reads as neither. */
function flag(ctx: MapContext, node: XmlNode | undefined): boolean | undefined {
  if (!node) return undefined;
  const raw = elementValue(node);
  const value = readBoolean(raw);
  if (value === undefined) ctx.issues.warning('invalid_boolean', `${node.name} "${raw}" is not yes or no; not kept`, node.path);
  return value;
}

/** Trimmed text of a child, undefined when absent or empty. */
function text(node: XmlNode, name: string): string | undefined {
  const c = child(node, name);
  const value = c ? elementValue(c) : '';
  return value === '' ? undefined : value;
}

/** A number; undefined with a warning when the text is not one. */
function number(ctx: MapContext, node: XmlNode | undefined, what: string): number | undefined {
  if (!node) return undefined;
  const raw = elementValue(node);
  if (raw === '') return undefined;
  const value = readDecimal(raw.replace(/%$/, ''));
  if (value === undefined) ctx.issues.warning('invalid_number', `${what} "${raw}" is not a number; not kept`, node.path);
  return value;
}

/** Names of the flags set to yes among a group's children (views, idealFor, ecoFriendly). */
function flagsSet(ctx: MapContext, group: XmlNode | undefined, rename: Record<string, string> = {}): string[] | undefined {
  if (!group) return undefined;
  const set: string[] = [];
  for (const node of group.children) if (flag(ctx, node)) set.push(rename[node.name] ?? node.name);
  return set;
}

const AUTHORITIES: Readonly<Record<string, string>> = {
  auction: 'auction',
  exclusive: 'exclusive',
  multilist: 'multilist',
  conjunctional: 'conjunctional',
  open: 'open',
  sale: 'sale',
  forsale: 'sale',
  setsale: 'setSale',
  tender: 'tender',
  eoi: 'eoi',
  offers: 'offers',
};

const RURAL = ['fencing', 'annualRainfall', 'soilTypes', 'improvements', 'councilRates', 'irrigation', 'carryingCapacity', 'services'] as const;

function mapAuthority(ctx: MapContext, listing: XmlNode, out: ListingExtras): void {
  const node = child(listing, 'authority') ?? child(listing, 'commercialAuthority');
  if (!node) return;
  const raw = elementValue(node);
  const authority = AUTHORITIES[raw.toLowerCase().replace(/[\s_-]/g, '')];
  if (authority) out.authority = authority;
  else if (raw !== '') ctx.issues.warning('unknown_authority', `${node.name} "${raw}" is not an authority REAXML names; not kept`, node.path);
  const exclusivity = child(listing, 'exclusivity');
  if (exclusivity) {
    const value = elementValue(exclusivity).toLowerCase();
    if (value === 'exclusive' || value === 'open') out.exclusivity = value;
    else if (value !== '') ctx.issues.warning('unknown_exclusivity', `exclusivity "${value}" is not exclusive or open; not kept`, exclusivity.path);
  }
}

function mapCommercial(ctx: MapContext, listing: XmlNode, out: ListingExtras): void {
  const c: NonNullable<ListingExtras['commercial']> = {};
  const categories = childrenNamed(listing, 'commercialCategory')
    .map((n) => (attr(n, 'name') ?? n.text).trim())
    .filter((name) => name !== '');
  if (categories.length) c.categories = categories;
  const outgoings = child(listing, 'outgoings');
  if (outgoings) {
    const tax: { tax?: Tax } = readTax(ctx, outgoings);
    c.outgoings = { amount: readPriceAmount(ctx, outgoings, 'outgoings'), currency: ctx.currency, period: 'year', ...tax };
  }
  const ret = number(ctx, child(listing, 'return'), 'return');
  if (ret !== undefined) c.return = ret;
  const leaseEnd = child(listing, 'currentLeaseEndDate');
  if (leaseEnd?.text.trim()) {
    const date = readDate(ctx, leaseEnd.text, () => leaseEnd.path, 'currentLeaseEndDate', { dateOnly: true });
    if (date) c.currentLeaseEndDate = date;
  }
  const zone = text(listing, 'zone');
  if (zone) c.zone = zone;
  const tenancy = text(listing, 'tenancy')?.toLowerCase();
  if (tenancy === 'unknown' || tenancy === 'vacant' || tenancy === 'tenanted') c.tenancy = tenancy;
  else if (tenancy) ctx.issues.warning('unknown_tenancy', `tenancy "${tenancy}" is not unknown, vacant or tenanted; not kept`, child(listing, 'tenancy')!.path);
  const extent = text(listing, 'propertyExtent')?.toLowerCase();
  if (extent === 'whole' || extent === 'part') c.propertyExtent = extent;
  const carSpacesNode = child(listing, 'carSpaces');
  if (carSpacesNode) {
    const count = readCount(elementValue(carSpacesNode));
    if (count) c.carSpaces = count.value;
    else ctx.issues.warning('invalid_feature_value', `carSpaces "${elementValue(carSpacesNode)}" is not a count; not kept`, carSpacesNode.path);
  }
  const parking = text(listing, 'parkingComments');
  if (parking) c.parkingComments = parking;
  const options = text(listing, 'furtherOptions');
  if (options) c.furtherOptions = options;
  const highlights = childrenNamed(listing, 'highlight')
    .map((n) => ({ id: Number(attr(n, 'id') ?? 0), text: n.text.trim() }))
    .filter((h) => h.text !== '');
  if (highlights.length) c.highlights = highlights.sort((a, b) => a.id - b.id).map((h) => h.text);
  if (Object.keys(c).length) out.commercial = c;
}

const LEASE_PERIODS: Readonly<Record<string, 'week' | 'month' | 'year'>> = {
  week: 'week',
  weekly: 'week',
  month: 'month',
  monthly: 'month',
  year: 'year',
  yearly: 'year',
  annual: 'year',
  annually: 'year',
};

function mapBusiness(ctx: MapContext, listing: XmlNode, out: ListingExtras): void {
  const b: NonNullable<ListingExtras['business']> = {};
  const categories = childrenNamed(listing, 'businessCategory')
    .map((n) => {
      const sub = child(n, 'businessSubCategory');
      return { name: text(n, 'name') ?? '', subCategory: (sub && text(sub, 'name')) ?? null };
    })
    .filter((c) => c.name !== '');
  if (categories.length) b.categories = categories;
  const takings = text(listing, 'takings');
  if (takings) b.takings = takings;
  const lease = child(listing, 'businessLease');
  if (lease) {
    const rawPeriod = (attr(lease, 'period') ?? '').trim().toLowerCase();
    const period = LEASE_PERIODS[rawPeriod];
    if (!period)
      ctx.issues.warning('invalid_rent_period', `businessLease period "${rawPeriod}" is not week, month or year; year assumed`, `${lease.path}/@period`);
    b.lease = { amount: readPriceAmount(ctx, lease, 'businessLease'), currency: ctx.currency, period: period ?? 'year', ...readTax(ctx, lease) };
  }
  const franchise = flag(ctx, child(listing, 'franchise'));
  if (franchise !== undefined) b.franchise = franchise;
  const terms = text(listing, 'terms');
  if (terms) b.terms = terms;
  if (Object.keys(b).length) out.business = b;
}

function mapLocationDetails(listing: XmlNode, out: ListingExtras): void {
  const municipality = text(listing, 'municipality');
  if (municipality) out.municipality = municipality;
  const directory = child(listing, 'streetDirectory');
  if (directory) {
    out.streetDirectory = {
      type: attr(directory, 'type')?.trim() || null,
      page: text(directory, 'page') ?? null,
      reference: text(directory, 'reference') ?? null,
    };
  }
  const estate = child(listing, 'estate');
  const estateName = estate && text(estate, 'name');
  if (estate && estateName) out.estate = { name: estateName, stage: text(estate, 'stage') ?? null };
}

function mapLand(ctx: MapContext, listing: XmlNode, out: ListingExtras): void {
  const land = child(listing, 'landDetails');
  if (land) {
    const details: NonNullable<ListingExtras['land']> = {};
    const frontage = number(ctx, child(land, 'frontage'), 'frontage');
    if (frontage !== undefined) details.frontageM = frontage;
    const depths = childrenNamed(land, 'depth')
      .map((d) => ({ side: (attr(d, 'side') ?? '').trim().toLowerCase() || 'rear', m: number(ctx, d, 'depth') }))
      .filter((d): d is { side: string; m: number } => d.m !== undefined);
    if (depths.length) details.depths = depths;
    const crossOver = child(land, 'crossOver');
    const side = crossOver ? elementValue(crossOver).toLowerCase() : '';
    if (side) details.crossOver = side;
    if (Object.keys(details).length) out.land = details;
  }
  const building = child(listing, 'buildingDetails');
  const rating = number(ctx, building && child(building, 'energyRating'), 'energyRating');
  if (rating !== undefined) {
    if (rating >= 0 && rating <= 10) out.energyRating = rating;
    else ctx.issues.warning('invalid_number', `energyRating ${rating} is not between 0 and 10; not kept`, child(building!, 'energyRating')!.path);
  }
}

function year(ctx: MapContext, listing: XmlNode, name: string): number | undefined {
  const node = child(listing, name);
  if (!node) return undefined;
  const raw = elementValue(node);
  if (raw === '') return undefined;
  if (/^\d{4}$/.test(raw)) return Number(raw);
  ctx.issues.warning('invalid_number', `${name} "${raw}" is not a year; not kept`, node.path);
  return undefined;
}

/** Every extra field the listing carries. */
export function mapExtras(ctx: MapContext, listing: XmlNode): ListingExtras {
  const out: ListingExtras = {};
  mapAuthority(ctx, listing, out);
  const isMultiple = flag(ctx, child(listing, 'isMultiple'));
  if (isMultiple !== undefined) out.isMultiple = isMultiple;
  const depositTaken = flag(ctx, child(listing, 'depositTaken'));
  if (depositTaken !== undefined) out.depositTaken = depositTaken;
  const built = year(ctx, listing, 'yearBuilt');
  if (built !== undefined) out.yearBuilt = built;
  const renovated = year(ctx, listing, 'yearLastRenovated');
  if (renovated !== undefined) out.yearLastRenovated = renovated;
  mapCommercial(ctx, listing, out);
  mapBusiness(ctx, listing, out);
  const rural = child(listing, 'ruralFeatures');
  if (rural) {
    const features: NonNullable<ListingExtras['rural']> = {};
    for (const name of RURAL) {
      const value = text(rural, name);
      if (value) features[name] = value;
    }
    if (Object.keys(features).length) out.rural = features;
  }
  const allowances = child(listing, 'allowances');
  if (allowances) {
    const a: NonNullable<ListingExtras['allowances']> = {};
    const pets = flag(ctx, child(allowances, 'petFriendly'));
    const furnished = flag(ctx, child(allowances, 'furnished'));
    const smokers = flag(ctx, child(allowances, 'smokers') ?? child(allowances, 'smoker'));
    if (pets !== undefined) a.pets = pets;
    if (furnished !== undefined) a.furnished = furnished;
    if (smokers !== undefined) a.smokers = smokers;
    if (Object.keys(a).length) out.allowances = a;
  }
  const idealFor = flagsSet(ctx, child(listing, 'idealFor'), { reitrees: 'retirees' });
  if (idealFor) out.idealFor = idealFor;
  const views = flagsSet(ctx, child(listing, 'views'));
  if (views) out.views = views;
  const eco = flagsSet(ctx, child(listing, 'ecoFriendly'));
  if (eco) out.ecoFriendly = eco;
  mapLocationDetails(listing, out);
  mapLand(ctx, listing, out);
  const newConstruction = flag(ctx, child(listing, 'newConstruction'));
  if (newConstruction !== undefined) out.newConstruction = newConstruction;
  const homeLand = flag(ctx, child(listing, 'isHomeLandPackage'));
  if (homeLand !== undefined) out.isHomeLandPackage = homeLand;
  return out;
}
