import { threadId } from 'node:worker_threads';
import { serveTasks } from '../../lib/worker-pool.js';

/** A worker script for the pool's test: doubles n, throws or exits when told, and says which thread it ran on. */
serveTasks((task: { n?: number; fail?: string; exit?: boolean }) => {
  if (task.exit) process.exit(3);
  if (task.fail) throw new Error(task.fail);
  return { doubled: (task.n ?? 0) * 2, thread: threadId };
});
