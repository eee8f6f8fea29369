/**
 * Batches of a feed, applied two at a time: while one batch is written, the next is decided
 * (mapped, hashed, compared with the store), so mapping overlaps the database's work. Writes stay
 * one at a time and in feed order, and each batch's outcome is recorded in that order. A batch
 * marked afterEarlier (it holds a listing an earlier batch carried) is decided only once every
 * earlier batch is written, so it sees what they wrote. A failure surfaces at the next add() or at
 * drain(), and no write starts after a failed one.
 */
export class BatchPipeline<Item, Decided, Outcome> {
  /** The last batch's write (and record); resolves once it and every earlier one are done. */
  private written: Promise<void> = Promise.resolve();
  /** The write before the last: add() waits for it, so at most two batches are in flight. */
  private writtenBefore: Promise<void> = Promise.resolve();

  constructor(
    private readonly steps: {
      decide(batch: Item[]): Promise<Decided>;
      write(decided: Decided): Promise<Outcome>;
      record(batch: Item[], outcome: Outcome): Promise<void>;
    },
  ) {}

  /** Takes a batch; returns once it may be followed by another (at most two in flight). */
  async add(batch: Item[], options: { afterEarlier?: boolean } = {}): Promise<void> {
    await this.writtenBefore;
    const previous = this.written;
    if (options.afterEarlier) await previous;
    const deciding = this.steps.decide(batch);
    deciding.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    this.writtenBefore = previous;
    this.written = (async () => {
      await previous; // first, so that a failure here never leaves an earlier write running
      const decided = await deciding;
      await this.steps.record(batch, await this.steps.write(decided));
    })();
    this.written.catch(() => undefined); // awaited at a later add() or at drain()
  }

  /** Waits until every batch is written and recorded; throws the first failure. */
  async drain(): Promise<void> {
    await this.written;
  }

  /** After a failure elsewhere: waits for the write in progress to end, whatever its outcome. */
  async settle(): Promise<void> {
    await this.written.catch(() => undefined);
  }
}
