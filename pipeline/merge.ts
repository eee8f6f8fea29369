import { REPLACED_FIELDS } from './field-rules.js';
import { contentHash } from './hash.js';
import { listingKey } from './listing-key.js';
import { numberMedia } from './number-media.js';
import { slotRank } from './reaxml/map-media.js';
import { type Agent, type CanonicalListing, EXTRA_FIELDS, type ListingDelta, type MediaItem, type SlotMap } from './types.js';

function mergeSlots<T extends { slot: string }>(stored: T[], delta: SlotMap<T> | undefined): T[] {
  if (!delta) return stored;
  if (stored.length === 0) {
    // Nothing to merge onto (a new listing): the delta's items, in its order, ranked.
    const items: T[] = [];
    for (const slot in delta) {
      const value = delta[slot];
      if (value !== null) items.push(value);
    }
    return items.sort((a, b) => slotRank(a.slot) - slotRank(b.slot));
  }
  const bySlot = new Map(stored.map((item) => [item.slot, item]));
  for (const [slot, value] of Object.entries(delta)) {
    if (value === null) bySlot.delete(slot);
    else bySlot.set(slot, value);
  }
  return [...bySlot.values()].sort((a, b) => slotRank(a.slot) - slotRank(b.slot));
}

/** Photos (m first and the hero), then floorplans, then documents, numbered in that order. */
function mergeMedia(stored: MediaItem[], delta: ListingDelta): MediaItem[] {
  const of = (kind: MediaItem['kind']) => stored.filter((m) => m.kind === kind);
  const photos = mergeSlots(of('photo'), delta.photos as SlotMap<MediaItem> | undefined);
  const floorplans = mergeSlots(of('floorplan'), delta.floorplans as SlotMap<MediaItem> | undefined);
  const documents = mergeSlots(of('document'), delta.documents as SlotMap<MediaItem> | undefined);
  return numberMedia(photos, floorplans, documents, photos.find((p) => p.slot === 'm') ?? photos[0]);
}

/** A new listing: every field present, in the canonical order, with what the delta says or its empty value. */
function newListing(delta: ListingDelta): Record<string, unknown> {
  const replace = delta.replace;
  return {
    listingKey: listingKey(delta.office, delta.uniqueId),
    office: delta.office,
    uniqueId: delta.uniqueId,
    format: delta.format,
    category: delta.category,
    subCategory: delta.subCategory ?? null,
    saleMode: delta.saleMode || (delta.category === 'rental' || delta.category === 'holidayRental' ? 'rent' : 'sale'),
    status: delta.status,
    modTime: delta.modTime,
    price: delta.price ?? null,
    rent: delta.rent ?? null,
    sold: delta.sold ?? null,
    bond: delta.bond ?? null,
    bedrooms: delta.bedrooms ?? null,
    bathrooms: delta.bathrooms ?? null,
    features: delta.features ? (replace ? delta.features : { ...delta.features }) : {},
    landAreaSqm: delta.landAreaSqm ?? null,
    buildingAreaSqm: delta.buildingAreaSqm ?? null,
    address: delta.address ?? null,
    location: delta.location ?? null,
    media: replace ? replace.media : mergeMedia([], delta),
    agents: replace ? replace.agents : mergeSlots<Agent>([], delta.agents),
    headline: delta.headline ?? null,
    description: delta.description ?? null,
    auction: delta.auction ?? null,
    dateAvailable: delta.dateAvailable ?? null,
    inspections: delta.inspections ?? [],
    links: delta.links ?? [],
    hidden: false,
    projectKey: delta.projectKey ?? null,
    ...(delta.bothPrices ? { bothPrices: true } : {}),
    ...extrasOf(delta),
  };
}

/** The extra fields a delta carries (each only when given). */
function extrasOf(delta: ListingDelta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of EXTRA_FIELDS) if (delta[field] !== undefined && delta[field] !== null) out[field] = delta[field];
  return out;
}

/** The stored listing (in its own key order, without its hash) with the delta applied. */
function updatedListing(stored: CanonicalListing, delta: ListingDelta): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const key in stored) if (key !== 'contentHash') merged[key] = stored[key as keyof CanonicalListing];
  if (!delta.keepCategory) merged.category = delta.category;
  merged.status = delta.status;
  merged.modTime = delta.modTime;
  merged.format = delta.format;
  if (delta.saleMode) merged.saleMode = delta.saleMode;
  if (delta.bothPrices) merged.bothPrices = true;
  for (const field of REPLACED_FIELDS) if (delta[field] !== undefined) merged[field] = delta[field];
  // An extra field set to null by the delta is removed (extras are present only when they hold something).
  for (const field of EXTRA_FIELDS) if (merged[field] === null) delete merged[field];
  if (delta.features) merged.features = delta.replace ? delta.features : { ...stored.features, ...delta.features };
  merged.media = delta.replace ? delta.replace.media : mergeMedia(stored.media, delta);
  merged.agents = delta.replace ? delta.replace.agents : mergeSlots<Agent>(stored.agents, delta.agents);
  return merged;
}

/**
 * Applies a delta to the stored listing (or to nothing, for a new one) (docs/architecture.md, Formats and mapping):
 * absent fields keep the stored value, slot maps replace or delete single slots, a status-only
 * record changes the status and keeps the rest. Pure; returns the canonical record with its
 * content hash, built in one copy. hash: false leaves the hash empty, for a caller that neither
 * compares nor keeps it (a dry run that keeps no previews).
 */
export function mergeListing(stored: CanonicalListing | null, delta: ListingDelta, options: { hash?: boolean } = {}): CanonicalListing {
  const merged = stored ? updatedListing(stored, delta) : newListing(delta);
  merged.contentHash = options.hash === false ? '' : contentHash(merged);
  return merged as unknown as CanonicalListing;
}
