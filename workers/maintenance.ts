import { purgeAlerts } from '../db/alert-subscriptions.js';
import { purgeChangeLog } from '../db/change-log.js';
import { refreshDirectory, staleDirectoryOffices } from '../db/directory.js';
import { purgeFeedBodies } from '../db/feed-bodies.js';
import { staleFeedEventIds } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';
import { lostLeads, purgeLeads, releaseUnacknowledgedLeads } from '../db/leads.js';
import { dueEndpointIds } from '../db/webhook-lanes.js';
import type { Logger } from '../lib/logger.js';
import type { JobQueue } from './job-queue.js';

/**
 * What a sweep may do with a queue: requeue, never add. Work a sweep finds lost may have had a
 * job that BullMQ still keeps, finished, under the same id (completed ones for a day): an add
 * would be taken for that job and do nothing, and the work would stay lost.
 */
export type Requeue = Pick<JobQueue, 'requeue'>;

/** A piece of periodic work: idempotent, and safe to run in several processes at once. */
export interface MaintenanceTask {
  name: string;
  everyMs: number;
  run(): Promise<Record<string, number>>;
}

/** A queued or running feed untouched this long lost its job (a crash between commit and enqueue, a restart, an outage longer than its retries). */
export const STALE_FEED_MS = 5 * 60_000;
/**
 * A pending lead untouched this long lost its job (the queue was away when it was accepted). A
 * lead left `sending` is taken once its claim's lease has lapsed too (db/leads.ts, 5 minutes).
 */
export const STALE_LEAD_MS = 60_000;
/** An office's directory marked stale this long ago missed the refresh that follows a feed (it comes within milliseconds). */
export const STALE_DIRECTORY_MS = 10_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface MaintenanceDeps {
  db: Db;
  logger: Logger;
  ingestQueue: Requeue;
  leadQueue: Requeue;
  webhookQueue: Requeue;
  leadRetentionDays: number;
  feedBodyRetentionDays: number;
  /** Days the change log keeps its events. */
  changeLogDays: number;
  /** Numbers the change log's new rows (the sequencer; it also runs on every commit that logged). */
  sequenceChanges(): Promise<number>;
  /** Turns the change log's listing events into webhook deliveries (also after every numbering). */
  dispatchChanges(): Promise<number>;
  /** Sends the notification outbox. */
  sendMail(): Promise<{ sent: number; failed: number }>;
  /** Matches the change log against saved searches and queues (and sends) the alert mails due. */
  alerts(): Promise<{ matched: number; mails: number }>;
  /**
   * How long unfinished work must be untouched to count as lost. The in-process queue loses all
   * of it with the process, so its first sweep after a start takes everything (0).
   */
  staleAfter(): { feedMs: number; leadMs: number; directoryMs: number };
}

/**
 * The service's periodic work. With REDIS_URL each is a BullMQ job scheduler on the maintenance
 * queue (one run at a time across every worker, shown on the board with its failures and next
 * run); without it the in-process runtime runs them on timers.
 */
export function maintenanceTasks(deps: MaintenanceDeps): MaintenanceTask[] {
  return [...recoveryTasks(deps), ...changeLogTasks(deps), ...mailTasks(deps), ...retentionTasks(deps)];
}

/** Work whose job was lost, taken up again: feeds, leads (and leads no CRM acknowledged in time), webhook lanes with a delivery due, directory rows a feed left stale. */
function recoveryTasks(deps: MaintenanceDeps): MaintenanceTask[] {
  return [
    {
      name: 'requeue-lost-feeds',
      everyMs: MINUTE,
      async run() {
        const ids = await staleFeedEventIds(deps.db, deps.staleAfter().feedMs);
        for (const id of ids) {
          deps.logger.warn({ feedId: id }, 're-queueing a feed whose job was lost');
          await deps.ingestQueue.requeue(id);
        }
        return { requeued: ids.length };
      },
    },
    {
      name: 'requeue-lost-leads',
      everyMs: MINUTE,
      async run() {
        const leads = await lostLeads(deps.db, deps.staleAfter().leadMs);
        let lapsed = 0;
        for (const lead of leads) {
          if (lead.leaseLapsed) {
            lapsed += 1;
            deps.logger.warn(
              { leadId: lead.id },
              'sending a lead again: its last attempt claimed it and recorded no outcome within the lease (the mail may have gone out: delivery is at least once)',
            );
          }
          await deps.leadQueue.requeue(lead.key);
        }
        return { requeued: leads.length, leaseLapsed: lapsed };
      },
    },
    {
      name: 'release-unacknowledged-leads',
      everyMs: 15_000,
      async run() {
        // Leads on CRM delivery no CRM acknowledged in time are mailed after all (or dead-lettered without a recipient).
        const released = await releaseUnacknowledgedLeads(deps.db);
        for (const lead of released) {
          deps.logger.info({ leadId: lead.id, status: lead.status }, 'no CRM acknowledged a lead in time: it is mailed instead');
          // A failed requeue is picked up by requeue-lost-leads (the lead is pending and untouched).
          if (lead.status === 'pending') await deps.leadQueue.requeue(lead.key);
        }
        return { released: released.length };
      },
    },
    {
      name: 'send-due-webhooks',
      everyMs: 10_000,
      async run() {
        // The lanes with a delivery due (a retry, one past its lane's pause, one whose job was lost).
        const ids = await dueEndpointIds(deps.db);
        for (const id of ids) await deps.webhookQueue.requeue(id);
        return { queued: ids.length };
      },
    },
    {
      name: 'refresh-stale-directory',
      everyMs: 10_000,
      async run() {
        const offices = await staleDirectoryOffices(deps.db, deps.staleAfter().directoryMs, 100);
        await refreshDirectory(deps.db, offices);
        if (offices.length) deps.logger.warn({ offices: offices.length }, 'refreshed directory rows that a feed left stale');
        return { refreshed: offices.length };
      },
    },
  ];
}

/** The change log's numbering (with its listing events into webhook deliveries) and its purge past its window. */
function changeLogTasks(deps: MaintenanceDeps): MaintenanceTask[] {
  return [
    {
      name: 'sequence-changes',
      everyMs: 5_000,
      async run() {
        const numbered = await deps.sequenceChanges();
        return { numbered, webhookDeliveries: await deps.dispatchChanges() };
      },
    },
    {
      name: 'purge-change-log',
      everyMs: HOUR,
      async run() {
        const purged = await purgeChangeLog(deps.db, deps.changeLogDays);
        if (purged) deps.logger.info({ purged }, 'change log events past their window purged');
        return { purged };
      },
    },
  ];
}

/** The notification outbox, the alerts' matching and mails, and alert subscriptions past their time. */
function mailTasks(deps: MaintenanceDeps): MaintenanceTask[] {
  return [
    {
      name: 'send-notifications',
      everyMs: MINUTE,
      run: () => deps.sendMail(),
    },
    {
      name: 'send-alerts',
      everyMs: 5_000,
      async run() {
        // Instant alerts go within a minute of their change, and confirmation mails within seconds of the request.
        const turn = await deps.alerts();
        const mail = await deps.sendMail();
        return { ...turn, ...mail };
      },
    },
    {
      name: 'purge-alerts',
      everyMs: HOUR,
      async run() {
        const purged = await purgeAlerts(deps.db, deps.leadRetentionDays, deps.changeLogDays);
        if (purged.expired + purged.ended) deps.logger.info(purged, 'alert subscriptions past their time purged');
        return purged;
      },
    },
  ];
}

/** Leads and feed bodies past their retention. */
function retentionTasks(deps: MaintenanceDeps): MaintenanceTask[] {
  return [
    {
      name: 'purge-leads',
      everyMs: HOUR,
      async run() {
        const purged = await purgeLeads(deps.db, deps.leadRetentionDays);
        if (purged) deps.logger.info({ purged }, 'leads past their retention purged');
        return { purged };
      },
    },
    {
      name: 'purge-feed-bodies',
      everyMs: HOUR,
      async run() {
        const purged = await purgeFeedBodies(deps.db, deps.feedBodyRetentionDays);
        if (purged) deps.logger.info({ purged }, 'feed bodies past their retention deleted');
        return { purged };
      },
    },
  ];
}
