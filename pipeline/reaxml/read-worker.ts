import { serveTasks } from '../../lib/worker-pool.js';
import type { FeedContext } from '../types.js';
import { readPiece } from './read-piece.js';
import type { ReadOptions } from './read-threads.js';
import type { FeedPiece } from './split-feed.js';

/** The script of the threads that read pieces of large REAXML feeds (see read-threads.ts). */
serveTasks(({ piece, feed, dryRun }: { piece: FeedPiece; feed: FeedContext } & ReadOptions) => readPiece(piece, feed, { dryRun }));
