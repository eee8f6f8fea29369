import { contentHash } from './hash.js';
import { listingKey } from './listing-key.js';
import { numberMedia } from './number-media.js';
import { slotRank } from './reaxml/map-media.js';
import type { Agent, CanonicalListing, ListingDelta, MediaItem, SlotMap } from './types.js';

/** Plain-value fields a delta replaces whole when it carries them. */
const REPLACED = [
  'subCategory',
  'price',
  'rent',
  'sold',
  'bond',
  'bedrooms',
  'bathrooms',
  'landAreaSqm',
  'buildingAreaSqm',
  'address',
  'location',
  'headline',
  'description',
  'auction',
  'dateAvailable',
  'inspections',
  'links',
] as const;

function mergeSlots<T extends { slot: string }>(stored: T[], delta: SlotMap<T> | undefined): T[] {
  if (!delta) return stored;
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

/**
 * Applies a delta to the stored listing (or to nothing, for a new one) per DESIGN.md §4:
 * absent fields keep the stored value, slot maps replace or delete single slots, a status-only
 * record changes the status and keeps the rest. Pure; returns the canonical record with its hash.
 */
export function mergeListing(stored: CanonicalListing | null, delta: ListingDelta): CanonicalListing {
  const base: Omit<CanonicalListing, 'contentHash'> = stored
    ? { ...stored }
    : {
        listingKey: listingKey(delta.office, delta.uniqueId),
        office: delta.office,
        uniqueId: delta.uniqueId,
        format: delta.format,
        category: delta.category,
        subCategory: null,
        saleMode: delta.saleMode ?? (delta.category === 'rental' || delta.category === 'holidayRental' ? 'rent' : 'sale'),
        status: delta.status,
        modTime: delta.modTime,
        price: null,
        rent: null,
        sold: null,
        bond: null,
        bedrooms: null,
        bathrooms: null,
        features: {},
        landAreaSqm: null,
        buildingAreaSqm: null,
        address: null,
        location: null,
        media: [],
        agents: [],
        headline: null,
        description: null,
        auction: null,
        dateAvailable: null,
        inspections: [],
        links: [],
        hidden: false,
        projectKey: null,
      };
  const merged: Record<string, unknown> = { ...base, category: delta.category, status: delta.status, modTime: delta.modTime, format: delta.format };
  if (delta.saleMode) merged.saleMode = delta.saleMode;
  if (delta.bothPrices) merged.bothPrices = true;
  for (const field of REPLACED) if (delta[field] !== undefined) merged[field] = delta[field];
  if (delta.features) merged.features = delta.replace ? delta.features : { ...base.features, ...delta.features };
  if (delta.projectKey !== undefined) merged.projectKey = delta.projectKey;
  merged.media = delta.replace ? delta.replace.media : mergeMedia(base.media, delta);
  merged.agents = delta.replace ? delta.replace.agents : mergeSlots<Agent>(base.agents, delta.agents);
  delete merged.contentHash;
  const listing = merged as unknown as Omit<CanonicalListing, 'contentHash'>;
  return { ...listing, contentHash: contentHash(listing) };
}
