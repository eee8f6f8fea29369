import type { Metrics } from '../lib/metrics.js';
import { giveUpFeed, type IngestDeps, processFeed } from './ingest/process-feed.js';
import type { JobContext } from './job-queue.js';
import { deliverLead, giveUpLead, type LeadDeps } from './leads/deliver-lead.js';

/**
 * The feed queue's handlers, counted in the process's metrics (feeds by outcome, listings by
 * action). The outbox is sent when a feed put mail in it, and when one is given up (the operator is
 * told); the maintenance task sends the rest.
 */
export function feedJobs(deps: IngestDeps, metrics: Metrics | undefined, sendMail: () => Promise<unknown>) {
  return {
    async handle(feedId: string, job?: JobContext) {
      const summary = await processFeed(deps, feedId, job);
      if (metrics && summary.status === 'done') {
        metrics.feeds.inc({ outcome: summary.outcome ?? 'ok' });
        for (const [action, n] of Object.entries(summary.summary ?? {})) metrics.listings.inc({ action }, n);
        if (summary.counts?.invalid) metrics.listings.inc({ action: 'invalid' }, summary.counts.invalid);
      }
      if (summary.notified?.length) await sendMail();
      return summary;
    },
    async giveUp(feedId: string, err: Error) {
      metrics?.feeds.inc({ outcome: 'failed' });
      await giveUpFeed(deps, feedId, err);
      await sendMail();
    },
  };
}

/** The lead queue's handlers, each attempt counted in the process's metrics by its outcome. */
export function leadJobs(deps: LeadDeps, metrics: Metrics | undefined) {
  return {
    async deliver(key: string) {
      try {
        const outcome = await deliverLead(deps, key);
        metrics?.leadDeliveries.inc({ outcome: outcome.status });
        return outcome;
      } catch (err) {
        metrics?.leadDeliveries.inc({ outcome: (err as Error).name === 'UnrecoverableError' ? 'failed' : 'retry' });
        throw err;
      }
    },
    giveUp: (key: string, err: Error) => giveUpLead(deps, key, err),
  };
}
