/**
 * A listing's statuses, defined once: the canonical model, the API's schemas and the SQL that
 * decides what the public may read all take them from here.
 */

/** Every status a stored listing can have. */
export const LISTING_STATUSES = ['active', 'under_offer', 'sold', 'leased', 'withdrawn', 'off_market', 'archived'] as const;
export type Status = (typeof LISTING_STATUSES)[number];

/** The statuses a feed may give (a project's too): archived is the service's own, for listings a full feed no longer carried. */
export const FEED_STATUSES = ['active', 'under_offer', 'sold', 'leased', 'withdrawn', 'off_market'] as const satisfies readonly Status[];

/** The statuses a public read answers: on the market, sold or leased (a shown listing in one of these can be read by its key). */
export const READABLE_STATUSES = ['active', 'under_offer', 'sold', 'leased'] as const satisfies readonly Status[];
export type ReadableStatus = (typeof READABLE_STATUSES)[number];

/** READABLE_STATUSES as an SQL list: `('active', 'under_offer', 'sold', 'leased')`. */
export const READABLE_STATUSES_SQL = `(${READABLE_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/** The statuses a listing is on the market in: what a search answers by default, and what alerts are about. */
export const ON_MARKET_STATUSES = ['active', 'under_offer'] as const satisfies readonly Status[];
