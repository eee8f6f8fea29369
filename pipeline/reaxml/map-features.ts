import { attr, child, childrenNamed, childText, type XmlNode } from '../xml-node.js';
import type { MapContext } from './map-context.js';
import { readBoolean, readCount, readDecimal, roundSqm, sqmPerUnit } from './values.js';

/** Counts per the REAXML element reference; yes = 1, empty = 0. */
const COUNT_FEATURES = new Set(['ensuite', 'garages', 'carports', 'toilets', 'openSpaces', 'livingAreas']);
/** Text features, kept verbatim. */
const TEXT_FEATURES = new Set(['otherFeatures']);
/** Empty elements whose `type` attribute is the value. */
const TYPE_FEATURES = new Set(['heating', 'hotWaterService']);
/** REAXML's yes/no features (and the eco ones feeds put among them). */
const FLAG_FEATURES = [
  'remoteGarage',
  'secureParking',
  'study',
  'dishwasher',
  'builtInRobes',
  'gym',
  'workshop',
  'rumpusRoom',
  'floorboards',
  'broadband',
  'payTV',
  'vacuumSystem',
  'intercom',
  'spa',
  'insideSpa',
  'outsideSpa',
  'pool',
  'poolInGround',
  'poolAboveGround',
  'tennisCourt',
  'alarmSystem',
  'balcony',
  'deck',
  'courtyard',
  'outdoorEnt',
  'shed',
  'fullyFenced',
  'airConditioning',
  'ductedHeating',
  'ductedCooling',
  'splitSystemHeating',
  'hydronicHeating',
  'splitSystemAirCon',
  'gasHeating',
  'reverseCycleAirCon',
  'evaporativeCooling',
  'openFirePlace',
  'solarPanels',
  'solarHotWater',
  'waterTank',
  'greyWaterSystem',
];
/** REAXML's feature names by their lower case: feeds write them in any case (<Bathrooms>, <AirConditioning>). */
const REAXML_FEATURES: ReadonlyMap<string, string> = new Map(
  ['bedrooms', 'bathrooms', ...COUNT_FEATURES, ...TEXT_FEATURES, ...TYPE_FEATURES, ...FLAG_FEATURES].map((name) => [name.toLowerCase(), name]),
);
/** Non-REAXML spellings of count features real feeds send (by their lower case), and the feature they mean. */
const COUNT_SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['toilet', 'toilets'],
  ['ensuites', 'ensuite'],
  ['garage', 'garages'],
  ['carport', 'carports'],
  ['livingarea', 'livingAreas'],
]);

/** The REAXML feature an element of <features> means, in any case or a known other spelling; undefined for a name REAXML does not have. */
function featureName(name: string): string | undefined {
  const lower = name.toLowerCase();
  return REAXML_FEATURES.get(lower) ?? COUNT_SPELLINGS.get(lower);
}

/** A feature read under another name than REAXML's: a nonstandard_feature warning. */
function warnSpelling(ctx: MapContext, node: XmlNode, meant: string): void {
  const what = COUNT_FEATURES.has(meant) || meant === 'bedrooms' || meant === 'bathrooms' ? `the count ${meant}` : meant;
  ctx.issues.warning('nonstandard_feature', `<${node.name}> is not a REAXML feature; read as ${what}`, node.path);
}
/** More bedrooms or bathrooms than this is a typing error in the CRM, not a listing. */
const MAX_ROOMS = 100;

function readRooms(ctx: MapContext, features: XmlNode, name: 'bedrooms' | 'bathrooms'): number | null | undefined {
  const node = child(features, name) ?? features.children.find((c) => c.name.toLowerCase() === name);
  if (!node) return undefined;
  if (node.name !== name) warnSpelling(ctx, node, name);
  const raw = node.text.trim();
  const count = readCount(raw);
  if (!count) {
    ctx.issues.warning(`invalid_${name}`, `${name} "${raw}" is not a whole number; no value kept`, node.path);
    return null;
  }
  if (count.studio) ctx.issues.warning('bedrooms_studio', 'bedrooms "Studio" stored as 0 bedrooms', node.path);
  if (count.value > MAX_ROOMS) {
    ctx.issues.warning(`invalid_${name}`, `${name} ${count.value} is more than ${MAX_ROOMS}; no value kept`, node.path);
    return null;
  }
  return count.value;
}

/** bedrooms and bathrooms from <features>; undefined when there is no <features> (each is undefined when absent). */
export function mapRooms(ctx: MapContext, listing: XmlNode): { bedrooms?: number | null; bathrooms?: number | null } | undefined {
  const features = child(listing, 'features');
  if (!features) return undefined;
  return { bedrooms: readRooms(ctx, features, 'bedrooms'), bathrooms: readRooms(ctx, features, 'bathrooms') };
}

/**
 * Every other feature: counts as numbers, flags as booleans, heating/hot water as their type, each
 * by its REAXML name in any case. A name REAXML does not have is kept as it is spelt: a whole
 * number as a number (`<carSpaces>0</carSpaces>`), yes/no as a boolean.
 */
export function mapFeatures(ctx: MapContext, listing: XmlNode): Record<string, number | boolean | string | null> | undefined {
  const features = child(listing, 'features');
  if (!features) return undefined;
  const out: Record<string, number | boolean | string | null> = {};
  for (const node of features.children) {
    const meant = featureName(node.name);
    if (meant === 'bedrooms' || meant === 'bathrooms') continue;
    if (meant !== undefined && meant !== node.name) warnSpelling(ctx, node, meant);
    const name = meant ?? node.name;
    const raw = node.text.trim();
    if (TEXT_FEATURES.has(name)) {
      out[name] = raw === '' ? null : raw;
    } else if (TYPE_FEATURES.has(name)) {
      out[name] = attr(node, 'type') ?? (raw === '' ? null : raw);
    } else if (COUNT_FEATURES.has(name) || (meant === undefined && /^\d+$/.test(raw))) {
      const count = readCount(raw);
      if (count) out[name] = count.value;
      else ctx.issues.warning('invalid_feature_value', `${name} "${raw}" is not a count; ignored`, node.path);
    } else {
      const flag = readBoolean(raw);
      const count = flag === undefined ? readCount(raw) : undefined;
      if (flag !== undefined) out[name] = flag;
      else if (count)
        out[name] = count.value > 0; // "any value > 1 is considered 1"
      else ctx.issues.warning('invalid_feature_value', `${name} "${raw}" is not yes or no; ignored`, node.path);
    }
  }
  return out;
}

/** One <area> in square metres; ranges give their lower bound (with a warning). */
function readArea(ctx: MapContext, node: XmlNode): number | null {
  const unitRaw = attr(node, 'unit');
  const range = child(node, 'range');
  let text = node.text.trim();
  if (range) {
    const min = childText(range, 'min');
    if (text === '' && min) {
      text = min;
      ctx.issues.warning('area_range', `area is a range; its minimum ${min} is kept`, range.path);
    } else {
      ctx.issues.warning('area_range', 'area has both a value and a range; the value is kept', range.path);
    }
  }
  if (text === '') return null;
  const value = readDecimal(text);
  if (value === undefined || value < 0) {
    ctx.issues.warning('invalid_area', `area "${text}" is not a number; no value kept`, node.path);
    return null;
  }
  const factor = unitRaw === undefined ? undefined : sqmPerUnit(unitRaw);
  if (factor === undefined) {
    ctx.issues.warning('unknown_area_unit', `area unit "${unitRaw ?? ''}" is not squareMeter, square, acre or hectare; no value kept`, `${node.path}/@unit`);
    return null;
  }
  return roundSqm(value * factor);
}

/** landDetails/area and buildingDetails/area (the "total" area when several are given). */
export function mapAreas(ctx: MapContext, listing: XmlNode): { landAreaSqm?: number | null; buildingAreaSqm?: number | null } {
  const pick = (holderName: string) => {
    const holder = child(listing, holderName);
    if (!holder) return undefined;
    const areas = childrenNamed(holder, 'area');
    if (areas.length === 0) return undefined;
    const total = areas.find((a) => (attr(a, 'of') ?? 'total').toLowerCase() === 'total') ?? areas[0];
    return readArea(ctx, total);
  };
  return { landAreaSqm: pick('landDetails'), buildingAreaSqm: pick('buildingDetails') };
}
