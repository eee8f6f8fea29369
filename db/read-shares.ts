import { Semaphore, type SemaphoreInterface, withTimeout } from 'async-mutex';
import type { Knex } from 'knex';
import { HttpError } from '../lib/errors.js';

/**
 * Shares of a read pool (docs/reads.md, "Shares of the read pool"): the costly families of public
 * reads may each hold only a few of the pool's connections at once, and all of them together
 * never the last KEPT_FOR_CHEAP, so that however many costly searches arrive, a locality search,
 * a price search or one listing always finds a connection. A query of a costly family waits in
 * arrival order for its share, at most SHARE_WAIT_MS, then is a 503 with Retry-After.
 */

/**
 * The costly families: keyword searches (every query of a search with q: its words, its page,
 * its total), map searches (bbox or near, without q), facet counts (of any search), and RESO Web
 * API pages (a client's own $filter and $orderby).
 */
export type CostlyFamily = 'keyword' | 'map' | 'facets' | 'reso';

/** Connections of a read pool that no costly family may take; a pool of this many or fewer keeps none back (its costly queries take turns). */
export const KEPT_FOR_CHEAP = 2;
/** The most connections one costly family holds at once. */
export const FAMILY_SHARE = 2;
/** How long a costly query waits for its share before its request is a 503. */
export const SHARE_WAIT_MS = 2000;
/**
 * A pool too small to keep connections back (the embedded database's one) has costly queries take
 * turns, one at a time, waiting as long as any query waits for a connection (knex's 60 s): on one
 * connection they could not run side by side anyway, and cheap reads pass them in the queue.
 */
const TAKING_TURNS_WAIT_MS = 60_000;

const FAMILY_TEXT: Record<CostlyFamily, string> = {
  keyword: 'keyword searches',
  map: 'map searches',
  facets: 'facet counts',
  reso: 'RESO Web API queries',
};

export interface ReadShares {
  /** Runs `query` (one query at a time, so one connection) within its family's share; null: a cheap read, run at once. */
  run<T>(family: CostlyFamily | null, query: () => Promise<T>): Promise<T>;
}

/** Shares of a pool of `poolSize` connections. */
export function createReadShares(poolSize: number): ReadShares {
  const takingTurns = poolSize <= KEPT_FOR_CHEAP;
  const costlyShare = takingTurns ? 1 : poolSize - KEPT_FOR_CHEAP;
  const waitMs = takingTurns ? TAKING_TURNS_WAIT_MS : SHARE_WAIT_MS;
  const costly = new Semaphore(costlyShare);
  const families = new Map<CostlyFamily, Semaphore>();
  const take = async (semaphore: SemaphoreInterface, deadline: number, what: string) => {
    const busy = new HttpError(503, `too many ${what} are running at once; try again in a few seconds`, { 'retry-after': '2' });
    const [, release] = await withTimeout(semaphore, Math.max(0, deadline - Date.now()), busy).acquire();
    return release;
  };
  return {
    async run(family, query) {
      if (!family) return query();
      let own = families.get(family);
      if (!own) {
        own = new Semaphore(Math.min(FAMILY_SHARE, costlyShare));
        families.set(family, own);
      }
      // The family's share first, then the costly share: a query holding the costly share never
      // waits for anything but its connection, so no two queries wait on each other.
      const deadline = Date.now() + waitMs;
      const releaseOwn = await take(own, deadline, FAMILY_TEXT[family]);
      try {
        const releaseCostly = await take(costly, deadline, 'costly searches (keyword, map, facets, RESO Web API)');
        try {
          return await query();
        } finally {
          releaseCostly();
        }
      } finally {
        releaseOwn();
      }
    },
  };
}

/** One set of shares per pool, whoever reads through it (the public reads and the RESO Web API share the read pool). */
const byPool = new WeakMap<object, ReadShares>();

/** The shares of the pool `db` reads through, sized by that pool. */
export function readShares(db: Knex): ReadShares {
  const client = db.client as { config?: Knex.Config };
  let shares = byPool.get(client);
  if (!shares) {
    const pool = client.config?.pool as { max?: number } | undefined;
    shares = createReadShares(pool?.max ?? 10);
    byPool.set(client, shares);
  }
  return shares;
}
