import type { OpenHome } from './inspection-times.js';
/** Shapes shared by every pipeline stage. Field names: docs/architecture.md, The canonical listing. */

import type { Status } from './listing-statuses.js';

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

/** Context that the feed itself does not carry (docs/ingestion.md: the context object). */
export interface FeedContext {
  currency?: string;
  defaultCountry: string;
  sourceLocale: string;
  sourceOfficeId?: string;
}

export type { Status };
export type Category = 'residential' | 'rental' | 'land' | 'rural' | 'commercial' | 'commercialLand' | 'business' | 'holidayRental';

/** GST as REAXML states it on a price or rent. */
export type Tax = 'unknown' | 'exempt' | 'inclusive' | 'exclusive';

/** A lower and upper bound, either of which may be missing. */
export interface Range {
  min: number | null;
  max: number | null;
}

export interface Price {
  amount: number | null;
  currency: string;
  /** false: the agent withholds the amount (public answers carry the text, never the amount). */
  display: boolean;
  text: string | null;
  /** The feed's price range (REAXML <range>): amount is its lower bound. */
  range?: Range;
  /** display="range": the public sees the range (and the text), not the exact amount. */
  displayRange?: true;
  tax?: Tax;
}

export interface Rent {
  amount: number | null;
  currency: string;
  period: 'week' | 'month' | 'year';
  display: boolean;
  /** The price view shown instead of the amount. */
  text: string | null;
  range?: Range;
  displayRange?: true;
  tax?: Tax;
  /** Commercial rent: outgoings are paid on top of it. */
  plusOutgoings?: boolean;
  /** Commercial rent per square metre (per year), a range as REAXML gives it. */
  perSqm?: Range;
}

export interface Address {
  country: string;
  region: string | null;
  locality: string | null;
  postcode: string | null;
  street: string | null;
  streetNumber: string | null;
  subNumber: string | null;
  /** The street number as the feed gave it, when it was split into subNumber, streetNumber and lotNumber. */
  streetNumberText?: string;
  /** A building or site name. */
  site?: string;
  /** REAXML land and commercialLand lots ("5" in "Lot 5 Sample Road"); present only when the feed gives one. */
  lotNumber?: string;
  display: boolean;
}

export interface Location {
  lat: number;
  lng: number;
  precision: 'source' | 'street' | 'locality' | 'postcode' | 'region';
  source: string;
}

export interface MediaItem {
  /** The http(s) URL; absent for a file= item of a zip feed, which names its file instead. */
  url?: string;
  /** REAXML file= (a path inside the feed's archive), kept when there is no URL. */
  file?: string;
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
  /** Social profile URLs (http(s) only). */
  social?: { twitter?: string; facebook?: string; linkedIn?: string };
}

export type LinkKind = 'externalLink' | 'videoLink' | 'availabilityLink' | 'miniweb' | 'virtualTour';

/** Fields real feeds carry beyond the core model; each present only when the feed gives it. */
export interface ListingExtras {
  /** Sale authority: auction, exclusive, sale, setSale, tender, eoi, offers, multilist, conjunctional, open. */
  authority?: string;
  exclusivity?: 'exclusive' | 'open';
  isMultiple?: boolean;
  depositTaken?: boolean;
  yearBuilt?: number;
  yearLastRenovated?: number;
  commercial?: {
    categories?: string[];
    outgoings?: { amount: number | null; currency: string; period: 'year'; tax?: Tax };
    /** Annual return, percent. */
    return?: number;
    currentLeaseEndDate?: string;
    zone?: string;
    tenancy?: 'unknown' | 'vacant' | 'tenanted';
    propertyExtent?: 'whole' | 'part';
    carSpaces?: number;
    parkingComments?: string;
    furtherOptions?: string;
    highlights?: string[];
  };
  business?: {
    categories?: { name: string; subCategory: string | null }[];
    takings?: string;
    lease?: { amount: number | null; currency: string; period: 'week' | 'month' | 'year' };
    franchise?: boolean;
    terms?: string;
  };
  rural?: Partial<
    Record<'fencing' | 'annualRainfall' | 'soilTypes' | 'improvements' | 'councilRates' | 'irrigation' | 'carryingCapacity' | 'services', string>
  >;
  allowances?: { pets?: boolean; furnished?: boolean; smokers?: boolean };
  idealFor?: string[];
  views?: string[];
  ecoFriendly?: string[];
  municipality?: string;
  /** Street directory reference (never shown publicly, as REAXML says). */
  streetDirectory?: { type: string | null; page: string | null; reference: string | null };
  estate?: { name: string; stage: string | null };
  land?: { frontageM?: number; depths?: { side: string; m: number }[]; crossOver?: string };
  energyRating?: number;
  newConstruction?: boolean;
  isHomeLandPackage?: boolean;
  /** Sanitized HTML of the description (allow-listed tags, http(s) links only), by locale, when the feed's text had markup. */
  descriptionHtml?: Record<string, string>;
  /**
   * What the listing's source (an MLS, in RESO's Internet*YN and IDXParticipationYN fields) allows
   * on the internet. listing false: shown in no public read; address false: the street withheld
   * (address.display false). The others are for consumers of the data to honour.
   */
  internetDisplay?: { listing?: boolean; address?: boolean; automatedValuation?: boolean; consumerComments?: boolean; idxParticipation?: boolean };
  /** The listing office and co-listing office as the source names them (RESO ListOffice*, CoListOffice*). */
  listingOffices?: ListingOffice[];
  /** The source's own status (RESO MlsStatus), beside the standard status. */
  sourceStatus?: string;
  /**
   * RESO StandardStatus as the source gave it, in the Data Dictionary's spelling (`Pending`,
   * `ActiveUnderContract`): `status` folds several into one (both are under_offer), this tells them apart.
   */
  standardStatus?: string;
  /** When the listing agreement was signed (RESO ListingContractDate), YYYY-MM-DD. */
  listedDate?: string;
  /** Days on market as the source counts them (RESO DaysOnMarket). */
  daysOnMarket?: number;
  /** The first asking price (RESO OriginalListPrice). */
  originalPrice?: { amount: number; currency: string };
  /** The land's parcel (tax) number (RESO ParcelNumber). */
  parcelNumber?: string;
  /** Driving directions (RESO Directions). */
  directions?: string;
  /** Bathrooms by kind (RESO BathroomsFull, BathroomsThreeQuarter, BathroomsHalf, BathroomsOneQuarter, BathroomsPartial). */
  bathroomParts?: { full?: number; threeQuarter?: number; half?: number; oneQuarter?: number; partial?: number };
  /** Storeys of the building (RESO StoriesTotal). */
  stories?: number;
  /** Annual property tax (RESO TaxAnnualAmount, TaxYear). */
  annualTax?: { amount: number; currency: string; year: number | null };
  /** Owners' association fee (RESO AssociationFee with AssociationFeeFrequency, converted as rents are). */
  associationFee?: { amount: number | null; currency: string; period: 'week' | 'month' | 'year' | null; text: string | null };
  waterfront?: boolean;
  /** Rooms (RESO Rooms collection), in the source's order. */
  rooms?: Room[];
  /** The inspections (RESO open houses) read as times, in time order (pipeline/inspection-times.ts). */
  openHomes?: OpenHome[];
  /** The IANA zone the listing's local times were read in; present once a record carried inspections or an auction. */
  timeZone?: string;
}

export interface ListingOffice {
  role: 'list' | 'coList';
  name: string | null;
  phone: string | null;
  email: string | null;
  sourceOfficeId: string | null;
  /** The office's logo (an http(s) URL), when the source gives one (RESO Media, MediaCategory Office Logo). */
  logoUrl?: string;
}

export interface Room {
  type: string | null;
  level: string | null;
  dimensions: string | null;
  areaSqm: number | null;
  description: string | null;
}

export const EXTRA_FIELDS = [
  'authority',
  'exclusivity',
  'isMultiple',
  'depositTaken',
  'yearBuilt',
  'yearLastRenovated',
  'commercial',
  'business',
  'rural',
  'allowances',
  'idealFor',
  'views',
  'ecoFriendly',
  'municipality',
  'streetDirectory',
  'estate',
  'land',
  'energyRating',
  'newConstruction',
  'isHomeLandPackage',
  'descriptionHtml',
  'internetDisplay',
  'listingOffices',
  'sourceStatus',
  'standardStatus',
  'listedDate',
  'daysOnMarket',
  'originalPrice',
  'parcelNumber',
  'directions',
  'bathroomParts',
  'stories',
  'annualTax',
  'associationFee',
  'waterfront',
  'rooms',
  'openHomes',
  'timeZone',
] as const satisfies readonly (keyof ListingExtras)[];

export type SlotMap<T> = Record<string, T | null>;

/**
 * What one feed record says. A property that is absent (undefined) leaves the stored value
 * unchanged; slot maps carry replacements (an object) and deletions (null) per slot.
 */
export type FeedFormat = 'reaxml' | 'reso' | 'project';

/** The extra fields as a delta carries them: absent keeps the stored value, null removes it. */
type ExtrasDelta = { [K in keyof ListingExtras]?: ListingExtras[K] | null };

export interface ListingDelta extends ExtrasDelta {
  office: string;
  uniqueId: string;
  format: FeedFormat;
  category: Category;
  modTime: string;
  /**
   * Zone-less times read in the feed's default zone because the record has no address: applied
   * to a stored listing, they are read again in that listing's own zone.
   */
  localTimes?: { zone: string; modTime?: string; auction?: string; inspections?: boolean };
  status: Status;
  /** A removal that does not know the listing's kind: a stored listing keeps its category. */
  keepCategory?: boolean;
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
  links?: { kind: LinkKind; url: string }[];
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
export interface CanonicalListing extends ListingExtras {
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
  links: { kind: LinkKind; url: string }[];
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
