import type { KnownFingerprints } from '../known-fingerprints.js';

/** What a feed's reader is asked for besides its listings. */
export interface ReadOptions {
  /** Also apply each listing as new, as a dry run does (hash: with its content hash), where the listing is read. */
  dryRun?: { hash: boolean };
  /**
   * Ingestion: the fingerprints of the sources the store has for the feed's offices, asked for
   * only when the feed is read on the reading threads, which then leave those listings unmapped
   * (mapped later, should ingestion need them after all).
   */
  knownSources?: () => Promise<KnownFingerprints>;
}

/** What a reading thread is told with each piece: the dry run's ask, and the known sources once they have come. */
export type PieceOptions = Pick<ReadOptions, 'dryRun'> & { known?: KnownFingerprints };
