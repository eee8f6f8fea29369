/**
 * Runs a piece of work one at a time, off its askers' path: asked while a run is under way, it runs
 * once more after that one, however often it was asked meanwhile. A run that fails ends the runs
 * (onError is told); the next ask starts again. After close() nothing new starts.
 */
export class RerunOnce {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Asks for a run: now when none runs, else one more after the current one. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no run is under way (nor one asked for during it). */
  async idle(): Promise<void> {
    await this.running;
  }

  /** No run starts after this; resolves when the one under way has ended. */
  close(): Promise<void> {
    this.closed = true;
    return this.idle();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.work();
      } catch (err) {
        this.onError(err);
        return;
      }
    } while (this.again && !this.closed);
  }
}
