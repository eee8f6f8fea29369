/**
 * What became of a feed, in one word, wherever it is shown (the console, the admin API, the ingest
 * job's result): queued or running while it is being read; then ok (every listing stored),
 * with_invalid (some listings or projects refused), not_well_formed (the feed could not be read;
 * nothing stored), tripped (the circuit breaker held a full feed's archive for review); or failed
 * (ingestion gave up) and rejected (refused before it was read).
 */
export type FeedOutcome = 'queued' | 'running' | 'ok' | 'with_invalid' | 'not_well_formed' | 'tripped' | 'failed' | 'rejected';

/** The parts of a stored feed result that decide its outcome. */
export interface OutcomeResult {
  ok?: boolean;
  counts?: { invalid?: number } | null;
  issues?: { code: string }[];
  reconcile?: { status?: string } | null;
}

export function feedOutcome(status: string, result: OutcomeResult | null): FeedOutcome {
  if (status !== 'done') return status as FeedOutcome;
  if (result?.issues?.some((i) => i.code === 'feed_not_well_formed')) return 'not_well_formed';
  if (result?.reconcile?.status === 'tripped') return 'tripped';
  if (result?.ok === false || (result?.counts?.invalid ?? 0) > 0) return 'with_invalid';
  return 'ok';
}
