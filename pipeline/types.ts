/**
 * Shapes shared by every pipeline stage. The canonical listing and project are defined once, as
 * JSON Schemas (pipeline/listing-schema.ts: what the API serves and the tests validate against);
 * their TypeScript types are derived from those schemas here (json-schema-to-ts), so a field is added
 * by adding it to the schema (and to merge's FIELD_RULES, which the compiler then asks for) plus
 * its mapping per format.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ReplacedField } from './field-rules.js';
import type * as Schemas from './listing-schema.js';
import { extraProperties } from './listing-schema.js';
import type { Status } from './listing-statuses.js';

/** The schemas the listing and project refer to by $id. */
type References = {
  references: [
    typeof Schemas.priceSchema,
    typeof Schemas.rentSchema,
    typeof Schemas.addressSchema,
    typeof Schemas.locationSchema,
    typeof Schemas.mediaItemSchema,
    typeof Schemas.listingAgentSchema,
  ];
};

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
/** The canonical listing's type, derived from its JSON Schema (pipeline/listing-schema.ts). */
export type CanonicalListing = FromSchema<typeof Schemas.listingSchema, References>;
/** A new-home development as stored and returned; its child listings are canonical listings with its projectKey. */
export type CanonicalProject = FromSchema<typeof Schemas.projectSchema, References>;

/** Fields real feeds carry beyond the core model; each present only when the feed gives it. */
export type ListingExtras = FromSchema<{ type: 'object'; additionalProperties: false; properties: typeof extraProperties }>;
/** The extra fields, in the schema's order: a delta replaces each whole (merge.ts). */
export const EXTRA_FIELDS = Object.keys(extraProperties) as readonly (keyof ListingExtras)[];

export type Price = FromSchema<typeof Schemas.priceSchema>;
export type Rent = FromSchema<typeof Schemas.rentSchema>;
export type Address = FromSchema<typeof Schemas.addressSchema>;
export type Location = FromSchema<typeof Schemas.locationSchema>;
export type MediaItem = FromSchema<typeof Schemas.mediaItemSchema>;
export type Agent = FromSchema<typeof Schemas.listingAgentSchema>;
/** A lower and upper bound, either of which may be missing. */
export type Range = NonNullable<Price['range']>;
/** GST as REAXML states it on a price or rent. */
export type Tax = NonNullable<Price['tax']>;
export type Category = CanonicalListing['category'];
export type FeedFormat = CanonicalListing['format'];
export type LinkKind = CanonicalListing['links'][number]['kind'];
export type ListingOffice = NonNullable<ListingExtras['listingOffices']>[number];
export type Room = NonNullable<ListingExtras['rooms']>[number];
export type ProjectStage = CanonicalProject['stage'];

export type SlotMap<T> = Record<string, T | null>;

/**
 * What one feed record says. A property that is absent (undefined) leaves the stored value
 * unchanged; slot maps carry replacements (an object) and deletions (null) per slot.
 */

/**
 * The fields a delta replaces whole (pipeline/field-rules.ts), as the stored listing types them:
 * absent keeps the stored value; an extra field set to null is removed.
 */
type ReplacedDelta = { [K in ReplacedField]?: K extends keyof ListingExtras ? ListingExtras[K] | null : CanonicalListing[K] };

export interface ListingDelta extends ReplacedDelta {
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
  features?: Record<string, number | boolean | string | null>;
  photos?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  floorplans?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  documents?: SlotMap<Omit<MediaItem, 'order' | 'hero'>>;
  agents?: SlotMap<Agent>;
  /**
   * A whole record (RESO, project children): media and agents are replaced by these lists
   * instead of merged slot by slot.
   */
  replace?: { media: MediaItem[]; agents: Agent[] };
}
