import type { Knex } from 'knex';
import { refreshDirectory } from '../../db/directory.js';
import type { Logger } from '../../lib/logger.js';

/**
 * Brings the directory rows of the offices feeds changed up to date, after the feeds, in the
 * background of the process that ingested them. While a refresh runs, the offices asked for
 * meanwhile wait and are refreshed together by the next one: under a steady stream of small
 * pushes an office is refreshed once for the feeds that arrived during the previous refresh, not
 * once per feed (each refresh reads every public listing of the office). Offices wait marked stale
 * (directory_stale, written when their feed finished), so a refresh this process never ran (it
 * stopped first, or the refresh failed) is done by the maintenance sweep.
 */
export class DirectoryRefresher {
  private readonly waiting = new Set<string>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
  ) {}

  /** Queues the offices' refresh and returns at once. */
  request(offices: Iterable<string>): void {
    for (const office of offices) this.waiting.add(office);
    if (this.running || this.waiting.size === 0) return;
    this.running = this.drain().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once nothing is waiting or running (the process waits for it when it stops). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) {
      const offices = [...this.waiting];
      this.waiting.clear();
      await refreshOrLeaveMarked(this.db, this.logger, offices);
    }
  }
}

/**
 * refreshDirectory, with a failure logged rather than thrown: the offices stay marked stale, and
 * the maintenance sweep refreshes them.
 */
export async function refreshOrLeaveMarked(db: Knex, logger: Logger, offices: string[], context: Record<string, unknown> = {}): Promise<void> {
  try {
    await refreshDirectory(db, offices);
  } catch (err) {
    logger.warn({ ...context, offices: offices.length, err }, 'directory refresh failed; the stale-directory sweep will do it');
  }
}
