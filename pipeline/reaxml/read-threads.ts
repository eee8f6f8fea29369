import { WorkerPool } from '../../lib/worker-pool.js';
import type { FeedContext } from '../types.js';
import type { PieceOptions } from './read-options.js';
import type { PieceResult } from './read-piece.js';
import type { FeedPiece } from './split-feed.js';

export type ReadPool = WorkerPool<{ piece: FeedPiece; feed: FeedContext } & PieceOptions, PieceResult>;

export interface ReadThreadOptions {
  /** A feed is read on the threads only past this many characters (smaller ones are read where they arrive). */
  splitFrom: number;
  /** Characters per piece: a piece ends at the first listing's end past this. */
  pieceSize: number;
  /** Past this many characters without a cut, the rest of the feed is read on one thread (memory stays bounded). */
  stuckAfter: number;
}

const DEFAULTS: ReadThreadOptions = { splitFrom: 1 << 20, pieceSize: 256 * 1024, stuckAfter: 4 << 20 };

/**
 * Each reading thread's young generation: two semi-spaces of 16 MB (and room for large new
 * objects). Left to V8, two threads' heaps grew to about 245 MB together over a 100 MB feed. When
 * the process is started with --max-semi-space-size (every role of the service is, with 16), V8
 * takes that for every thread instead; with 32, a dry run of a 100 MB feed over HTTP grew the
 * server by 170 MB instead of 110 and was no faster, and a worker's first load of it peaked about
 * 110 MB higher, no faster either.
 */
const YOUNG_GENERATION_MB = 48;

let threads = 0;
let options = DEFAULTS;
let pool: ReadPool | null = null;

/**
 * How many worker threads read large REAXML feeds (0: every feed is read on the thread it arrives
 * on; threads already started stay until closeReadThreads, for when they are wanted again). Each
 * process role sets it from READ_THREADS at start.
 */
export function configureReadThreads(count: number, tuning: Partial<ReadThreadOptions> = {}): void {
  if (count > 0 && pool && pool.size !== count) void closeReadThreads();
  threads = count;
  options = { ...DEFAULTS, ...tuning };
}

/** Stops the reading threads (a later feed starts them again). */
export async function closeReadThreads(): Promise<void> {
  const stopping = pool;
  pool = null;
  await stopping?.close();
}

/** The pool and how to use it, or null when feeds are read on the thread they arrive on. */
export function readThreads(): { pool: ReadPool; options: ReadThreadOptions } | null {
  if (threads === 0) return null;
  pool ??= new WorkerPool(new URL('./read-worker.js', import.meta.url), threads, { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
  return { pool, options };
}
