import { serveTasks } from '../../lib/worker-pool.js';
import type { FeedContext } from '../types.js';
import type { PieceOptions } from './read-options.js';
import { readPiece } from './read-piece.js';
import type { FeedPiece } from './split-feed.js';

/** The script of the threads that read pieces of large REAXML feeds (see read-threads.ts). */
serveTasks(({ piece, feed, ...options }: { piece: FeedPiece; feed: FeedContext } & PieceOptions) => readPiece(piece, feed, options));
