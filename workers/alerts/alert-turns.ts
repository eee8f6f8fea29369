import type { Db } from '../../db/knex.js';
import type { Logger } from '../../lib/logger.js';
import { runAlerts } from './match-alerts.js';

/**
 * The alerts' turns: the change log's matches for saved searches, and the alert mails due (sent at
 * once). A turn runs after each numbering of the change log, off the caller's path (a feed's end
 * does not wait for it): one at a time, and one more when asked during a turn.
 */
export class AlertTurns {
  private turn: Promise<void> | null = null;
  private again = false;
  private closing = false;

  constructor(
    private readonly db: Db,
    private readonly holdMs: number,
    private readonly sendMail: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /** One turn now, awaited (the maintenance task's). Never fails the caller. */
  run = (): Promise<{ matched: number; mails: number }> =>
    runAlerts(this.db, this.holdMs)
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
    if (this.closing) return;
    if (this.turn) {
      this.again = true;
      return;
    }
    this.turn = (async () => {
      do {
        this.again = false;
        await this.run();
      } while (this.again && !this.closing);
    })().finally(() => {
      this.turn = null;
    });
  }

  /** No turn starts after this; resolves when the one under way has ended. */
  async close(): Promise<void> {
    this.closing = true;
    await this.turn;
  }
}
