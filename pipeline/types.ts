/** Shapes shared by every pipeline stage. Field names follow DESIGN.md §3. */

export type IssueLevel = 'error' | 'warning';

export interface Issue {
  level: IssueLevel;
  code: string;
  message: string;
  /** 0-based position of the listing in the feed; null for issues outside any listing. */
  listingIndex: number | null;
  uniqueId: string | null;
  /** XPath-like for XML (1-based positions), JSON Pointer for JSON. */
  path: string;
}

/** Context that the feed itself does not carry (SPEC.md "Context object"). */
export interface FeedContext {
  currency?: string;
  defaultCountry: string;
  sourceLocale: string;
  sourceOfficeId?: string;
}

export type Status = 'active' | 'under_offer' | 'sold' | 'leased' | 'withdrawn' | 'off_market' | 'archived';
export type Category = 'residential' | 'rental' | 'land' | 'rural' | 'commercial' | 'commercialLand' | 'business' | 'holidayRental';

export interface Price {
  amount: number | null;
  currency: string;
  display: boolean;
  text: string | null;
}

export interface Rent {
  amount: number | null;
  currency: string;
  period: 'week' | 'month' | 'year';
  display: boolean;
  /** The price view shown instead of the amount. */
  text: string | null;
}

export interface Address {
  country: string;
  region: string | null;
  locality: string | null;
  postcode: string | null;
  street: string | null;
  streetNumber: string | null;
  subNumber: string | null;
  /** REAXML land and commercialLand lots ("5" in "Lot 5 Sample Road"); present only when the feed gives one. */
  lotNumber?: string;
  display: boolean;
}

export interface Location {
  lat: number;
  lng: number;
  precision: 'source' | 'street' | 'locality' | 'postcode';
  source: string;
}

export interface MediaItem {
  url: string;
  kind: 'photo' | 'floorplan' | 'document';
  order: number;
  hero: boolean;
  /** Source slot (REAXML img/floorplan/document id), so a later delta can replace or delete it. */
  slot: string;
  title?: string;
}

export interface Agent {
  name: string | null;
  email: string | null;
  phones: { type: string; number: string }[];
  sourceAgentId: string | null;
  /** REAXML listingAgent id (1..4). */
  slot: string;
}

export type SlotMap<T> = Record<string, T | null>;

/**
 * What one feed record says. A property that is absent (undefined) leaves the stored value
 * unchanged; slot maps carry replacements (an object) and deletions (null) per slot.
 */
export type FeedFormat = 'reaxml' | 'reso' | 'project';

export interface ListingDelta {
  office: string;
  uniqueId: string;
  format: FeedFormat;
  category: Category;
  modTime: string;
  status: Status;
  saleMode?: 'sale' | 'rent';
  /** Commercial "both": the rent shown beside the sale price. */
  bothPrices?: boolean;
  subCategory?: string | null;
  price?: Price | null;
  rent?: Rent | null;
  sold?: { price: Price | null; date: string | null } | null;
  bond?: number | null;
  bedrooms?: number | null;
  bathrooms?: number | null;
  features?: Record<string, number | boolean | string | null>;
  landAreaSqm?: number | null;
  buildingAreaSqm?: number | null;
  address?: Address | null;
  location?: Location | null;
  headline?: Record<string, string> | null;
  description?: Record<string, string> | null;
  auction?: { date: string | null } | null;
  dateAvailable?: string | null;
  inspections?: string[];
  links?: { kind: 'externalLink' | 'videoLink'; url: string }[];
  photos?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  floorplans?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  documents?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  agents?: SlotMap<Agent>;
  /**
   * A whole record (RESO, project children): media and agents are replaced by these lists
   * instead of merged slot by slot.
   */
  replace?: { media: MediaItem[]; agents: Agent[] };
  /** Set on a project's child listings. */
  projectKey?: string;
}

/** A canonical listing as stored and returned (open object beyond the named fields). */
export interface CanonicalListing {
  listingKey: string;
  office: string;
  uniqueId: string;
  format: FeedFormat;
  category: Category;
  subCategory: string | null;
  saleMode: 'sale' | 'rent';
  status: Status;
  modTime: string;
  price: Price | null;
  rent: Rent | null;
  sold: { price: Price | null; date: string | null } | null;
  bond: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  features: Record<string, number | boolean | string | null>;
  landAreaSqm: number | null;
  buildingAreaSqm: number | null;
  address: Address | null;
  location: Location | null;
  media: MediaItem[];
  agents: Agent[];
  headline: Record<string, string> | null;
  description: Record<string, string> | null;
  auction: { date: string | null } | null;
  dateAvailable: string | null;
  inspections: string[];
  links: { kind: 'externalLink' | 'videoLink'; url: string }[];
  hidden: boolean;
  projectKey: string | null;
  contentHash: string;
}

export type ProjectStage = 'off_the_plan' | 'under_construction' | 'completed';

/** A new-home development as stored and returned; its child listings are canonical listings with its projectKey. */
export interface CanonicalProject {
  projectKey: string;
  office: string;
  uniqueId: string;
  format: 'project';
  /** archived once a full project feed for the office no longer carries it. */
  status: 'active' | 'archived';
  modTime: string;
  name: string;
  developer: { name: string; websiteUrl: string | null; logoUrl: string | null } | null;
  stage: ProjectStage;
  /** From the document, else from its children's sale prices (`derived`). */
  priceRange: { from: number | null; to: number | null; currency: string; derived: boolean } | null;
  /** YYYY, YYYY-MM or YYYY-MM-DD as the document gives it. */
  completionDate: string | null;
  address: Address;
  location: Location | null;
  headline: Record<string, string> | null;
  description: Record<string, string> | null;
  media: MediaItem[];
  /** The child listings' keys in document order. */
  listingKeys: string[];
  contentHash: string;
}
