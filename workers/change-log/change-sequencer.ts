import { sequenceChanges } from '../../db/change-log.js';
import type { Db } from '../../db/knex.js';
import type { Logger } from '../../lib/logger.js';
import { RerunOnce } from '../rerun-once.js';

/** The NOTIFY channel the change log's triggers wake the sequencer on (the payload is the schema). */
export const CHANGE_LOG_CHANNEL = 'change_log';

/**
 * Numbers the change log's new rows (db/change-log.ts, sequenceChanges) as soon as their
 * transactions commit: the log's triggers notify on commit, and a run follows each notification,
 * several notifications during a run making one more run. The maintenance task `sequence-changes`
 * runs it too, so a notification missed (a lost listening connection) delays a row by seconds,
 * never loses it. After a run that numbered rows, `onSequenced` is called (the change dispatcher).
 */
export class ChangeSequencer {
  private readonly runs: RerunOnce;
  private stopListening: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly onSequenced: () => Promise<void> = async () => undefined,
  ) {
    this.runs = new RerunOnce(
      async () => {
        if ((await sequenceChanges(this.db)) > 0) await this.onSequenced();
      },
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
   * One run now (a feed's end, the maintenance task, tests), after any run in progress. When it
   * returns, every row committed before it was called is numbered and its `onSequenced` has run,
   * by this run or by one a notification started meanwhile (which it waits for).
   */
  async run(): Promise<number> {
    await this.runs.idle();
    const numbered = await sequenceChanges(this.db);
    if (numbered > 0) await this.onSequenced();
    await this.runs.idle();
    return numbered;
  }

  /** Stops listening and waits for a run in progress. */
  async close(): Promise<void> {
    const runsEnded = this.runs.close();
    // A database already closed has no listener left to stop.
    await this.stopListening?.().catch(() => undefined);
    await runsEnded;
  }
}
