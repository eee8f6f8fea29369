import { type PassingReader, sequenceChangesPassing } from '../../db/change-log.js';
import type { Db } from '../../db/knex.js';
import type { Logger } from '../../lib/logger.js';
import { RerunOnce } from '../rerun-once.js';

/** The NOTIFY channel the change log's triggers wake the sequencer on (the payload is the schema). */
export const CHANGE_LOG_CHANNEL = 'change_log';

/**
 * Numbers the change log's new rows (db/change-log.ts, sequenceChangesPassing) as soon as their
 * transactions commit: the log's triggers notify on commit, and a run follows each notification,
 * several notifications during a run making one more run. The maintenance task `sequence-changes`
 * runs it too, so a notification missed (a lost listening connection) delays a row by seconds,
 * never loses it. The same round trip lets each of the log's `readers` pass over the rows it would
 * make nothing of; after a run, `onTurns` is called with the readers that still need a turn of
 * their own (the change dispatcher, the alerts), if any.
 */
export class ChangeSequencer {
  private readonly runs: RerunOnce;
  private stopListening: (() => Promise<void>) | null = null;
  /** When (performance.now()) the latest run that ended well began: every row committed before then is numbered and dispatched. */
  private coveredFrom = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly readers: readonly PassingReader[] = [],
    private readonly onTurns: (turns: string[]) => Promise<void> = async () => undefined,
  ) {
    this.runs = new RerunOnce(
      () => this.once(),
      (err) => this.logger.warn({ err }, 'numbering the change log failed; the maintenance task tries again'),
    );
  }

  /** Listens for the log's notifications (this database schema's only) and runs once. */
  async start(): Promise<void> {
    try {
      this.stopListening = await this.db.listen(CHANGE_LOG_CHANNEL, (schema) => {
        if (schema === this.db.schemaName) this.kick();
      });
    } catch (err) {
      this.logger.warn({ err }, 'could not listen for change log notifications; the maintenance task numbers changes');
    }
    this.kick();
  }

  /** Asks for a run: now when none runs, else one more after the current one. */
  kick(): void {
    this.runs.kick();
  }

  /**
   * One run now (the maintenance task, tests), after any run in progress. When it returns, every
   * row committed before it was called is numbered and its readers' turns have run, by this run
   * or by one a notification started meanwhile (which it waits for).
   */
  async run(): Promise<number> {
    await this.runs.idle();
    const numbered = await this.once();
    await this.runs.idle();
    return numbered;
  }

  /**
   * What run() promises for the rows committed before `since` (a performance.now() reading): a
   * feed's end, whose writes committed before it was finished. The notification of those writes
   * has nearly always started a run by the time the feed is finished; when a run that began after
   * `since` has ended well, or one under way does, no run of its own is made.
   */
  async runSince(since: number): Promise<void> {
    await this.runs.idle();
    if (this.coveredFrom > since) return;
    await this.run();
  }

  /** Stops listening and waits for a run in progress. */
  async close(): Promise<void> {
    const runsEnded = this.runs.close();
    // A database already closed has no listener left to stop.
    await this.stopListening?.().catch(() => undefined);
    await runsEnded;
  }

  /** A numbering and the readers' turns it leaves; returns how many rows were numbered. */
  private async once(): Promise<number> {
    const began = performance.now();
    const { numbered, turns } = await sequenceChangesPassing(this.db, this.readers);
    if (turns.length > 0) await this.onTurns(turns);
    this.coveredFrom = Math.max(this.coveredFrom, began);
    return numbered;
  }
}
