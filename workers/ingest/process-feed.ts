import { failFeedEvent, finishFeedEvent, readFeedBody, startFeedEvent, type FeedEvent } from '../../db/feed-events.js';
import type { Db } from '../../db/knex.js';
import type { Logger } from '../../lib/logger.js';
import { decodeXmlBytes } from '../../pipeline/decode.js';
import type { BreakerSettings } from '../../pipeline/reconcile.js';
import type { FeedContext } from '../../pipeline/types.js';
import { notifyFeedFailures } from './feed-notifications.js';
import { ingestFeed } from './ingest-feed.js';

export interface IngestDeps {
  db: Db;
  breaker: BreakerSettings;
  logger: Logger;
}

/**
 * The stored chunks in 64 KB views: the parser then works on small strings that die young,
 * instead of megabyte strings that go straight to V8's large-object space.
 */
async function* smallPieces(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const size = 64 * 1024;
  for await (const chunk of chunks) for (let i = 0; i < chunk.length; i += size) yield chunk.subarray(i, i + size);
}

/** The stored body as text: a JSON-carried string is UTF-8; raw bytes are decoded by their declaration. */
async function* bodyText(db: Db, event: FeedEvent): AsyncGenerator<string> {
  const chunks = smallPieces(readFeedBody(db, event.id));
  if (event.bodyKind === 'bytes') {
    yield* decodeXmlBytes(chunks);
    return;
  }
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * The ingest job: claims the feed event, ingests it, stores the result and queues any failure
 * notification. Safe to run twice: a finished event is skipped, and a crashed run is simply run
 * again (every step converges). Throws on infrastructure errors so the queue retries.
 */
export async function processFeed(deps: IngestDeps, feedId: string): Promise<void> {
  const event = await startFeedEvent(deps.db, feedId);
  if (!event) {
    deps.logger.info({ feedId }, 'feed already finished or unknown; nothing to do');
    return;
  }
  const started = Date.now();
  const result = await ingestFeed(deps.db, deps.breaker, {
    feedId,
    format: event.format,
    source: bodyText(deps.db, event),
    context: event.context as unknown as FeedContext,
    mode: event.mode,
    officeScope: event.officeScope,
  });
  await finishFeedEvent(deps.db, feedId, result as unknown as Record<string, unknown>);
  const notified = await notifyFeedFailures(deps.db, event, result);
  deps.logger.info({ feedId, ms: Date.now() - started, counts: result.counts, summary: result.summary, reconcile: result.reconcile?.status, notified }, 'feed ingested');
}

/** Called when the queue gives up on a feed: the event says so instead of staying queued. */
export async function giveUpFeed(deps: IngestDeps, feedId: string, err: Error): Promise<void> {
  await failFeedEvent(deps.db, feedId, 'failed', err.message);
  deps.logger.error({ feedId, err }, 'feed ingestion failed permanently');
}
