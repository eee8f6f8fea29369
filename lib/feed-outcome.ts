/**
 * What became of a feed, in one word, wherever it is shown (the console, the admin API, a key's own
 * feed history, the ingest job's result): queued or running while it is being read; then ok (every
 * listing stored), with_invalid (some listings or projects refused), not_well_formed (the feed
 * could not be read to its end; what came before the fault was applied), tripped (the circuit
 * breaker held a full feed's archive for review); or failed (ingestion gave up) and rejected
 * (refused before it was read). The database works it out from the event's status and result
 * (feed_events.outcome, migration 20261125080000_feed_outcome), the one definition.
 */
export type FeedOutcome = 'queued' | 'running' | 'ok' | 'with_invalid' | 'not_well_formed' | 'tripped' | 'failed' | 'rejected';

export const FEED_OUTCOMES: readonly FeedOutcome[] = ['queued', 'running', 'ok', 'with_invalid', 'not_well_formed', 'tripped', 'failed', 'rejected'];

/** The outcomes that need a look: something was refused, could not be read, was held or failed. */
export const PROBLEM_OUTCOMES: readonly FeedOutcome[] = ['with_invalid', 'not_well_formed', 'tripped', 'failed'];
