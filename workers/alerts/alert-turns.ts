import type { Db } from '../../db/knex.js';
import type { Logger } from '../../lib/logger.js';
import { RerunOnce } from '../rerun-once.js';
import { runAlerts } from './match-alerts.js';

/**
 * The alerts' turns: the change log's matches for saved searches, and the alert mails due (sent at
 * once). A turn runs after each numbering of the change log, off the caller's path (a feed's end
 * does not wait for it): one at a time, and one more when asked during a turn.
 */
export class AlertTurns {
  /** Turns after numberings: never fail (run catches), so the runs' onError is never called. */
  private readonly afterChanges = new RerunOnce(
    () => this.run(true),
    () => undefined,
  );

  constructor(
    private readonly db: Db,
    private readonly holdMs: number,
    private readonly sendMail: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /** One turn now, awaited (the maintenance task's; afterChanges: one after a numbering of the change log). Never fails the caller. */
  run = (afterChanges = false): Promise<{ matched: number; mails: number }> =>
    runAlerts(this.db, this.holdMs, { afterChanges })
      .then(async (turn) => {
        if (turn.mails) await this.sendMail();
        return turn;
      })
      .catch((err) => {
        this.logger.warn({ err }, 'matching alerts failed; the maintenance task tries again');
        return { matched: 0, mails: 0 };
      });

  /** A turn soon, not awaited: started now, or once the turn under way ends. */
  kick(): void {
    this.afterChanges.kick();
  }

  /** No turn starts after this; resolves when the one under way has ended. */
  close(): Promise<void> {
    return this.afterChanges.close();
  }
}
