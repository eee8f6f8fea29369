import type { MediaItem } from './types.js';

/** A media item before it has its place in the listing. */
export type MediaSource = Omit<MediaItem, 'order' | 'hero'> & Partial<Pick<MediaItem, 'order' | 'hero'>>;

/**
 * A listing's media in canonical order (docs/architecture.md, The canonical listing), whatever the format: the hero first among
 * the photos, then the other photos, floor plans and documents, each list in the order given,
 * numbered from 0. Only `hero` (one of the photos, or none) is flagged.
 */
export function numberMedia<T extends MediaSource>(photos: T[], floorplans: T[], documents: T[], hero: T | undefined): MediaItem[] {
  const ordered = [...(hero ? [hero] : []), ...photos.filter((p) => p !== hero), ...floorplans, ...documents];
  return ordered.map((item, order) => ({ ...item, order, hero: item === hero }));
}
