import { type FeedSeen, FeedWait } from '../../api/wait-for-feed.js';
import { createFeedKey } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { eventually } from '../helpers.js';
import { OPERATOR } from '../service.js';

export const AUD = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };

/** An active key made the way the operator command makes one. */
export async function activeKey(db: Db, officeIds: string[], alertEmail = 'alerts@agency.example'): Promise<string> {
  return (await createFeedKey(db, { clientName: 'Test CRM', alertEmail, officeIds, status: 'active' })).secret;
}

export function pushFeed(url: string, key: string, xml: string, extra: { mode?: 'full' | 'incremental'; context?: object } = {}) {
  return fetch(`${url}/v1/feeds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ xml, mode: extra.mode, context: extra.context ?? AUD }),
  });
}

export function admin(url: string, method: string, path: string, body?: unknown, token = OPERATOR) {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A listing for an office with an address, so it is valid on the market. */
export function officeListing(
  office: string,
  uniqueId: string,
  options: { modTime?: string; status?: string; headline?: string; price?: number } = {},
): string {
  const mod = options.modTime ?? '2024-03-01-10:00:00';
  return (
    `<residential modTime="${mod}" status="${options.status ?? 'current'}"><agentID>${office}</agentID><uniqueID>${uniqueId}</uniqueID>` +
    `<headline>${options.headline ?? `Home ${uniqueId}`}</headline><description>Nice.</description><price>${options.price ?? 500000}</price>` +
    '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>'
  );
}

/** A listing with no address: invalid on the market (an error issue naming its uniqueId). */
export const listingWithoutAddress = (office: string, uniqueId: string) =>
  `<residential modTime="2024-03-01-10:00:00" status="current"><agentID>${office}</agentID><uniqueID>${uniqueId}</uniqueID><headline>No address</headline><price>1</price></residential>`;

/**
 * Waits until no office is marked stale in the directory: a feed's directory refresh follows its
 * answer by a few milliseconds, so a test reading the directory right after a push waits for it.
 */
export async function directorySettled(db: Db, timeoutMs = 10_000): Promise<void> {
  await eventually(
    'the directory without stale marks',
    async () => {
      const [{ n }] = await db('directory_stale').count({ n: '*' });
      return Number(n) === 0;
    },
    timeoutMs,
  );
}

/** Waits up to waitMs for a feed whose status is not known (it is read first), as a push's wait does. */
export async function waitForFeed(db: Db, id: string, waitMs: number): Promise<FeedSeen | null> {
  const wait = new FeedWait(id);
  try {
    return await wait.wait(db, waitMs);
  } finally {
    wait.close();
  }
}
