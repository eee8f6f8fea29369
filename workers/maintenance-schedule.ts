import type { Logger } from '../lib/logger.js';
import { MAINTENANCE_QUEUE } from './job-queue.js';
import type { MaintenanceTask } from './maintenance.js';

type Bull = typeof import('./bullmq-queue.js');

/**
 * Runs each periodic task on its interval (everyMs overrides every task's, for tests): BullMQ job
 * schedulers with a Redis URL (one run per interval across every worker process), else a timer per
 * task in this process. A failed run is logged; the next interval tries again.
 */
export function scheduleMaintenance(
  tasks: MaintenanceTask[],
  bull: Bull | null,
  options: { redisUrl: string | null; queuePrefix?: string; everyMs?: number },
  logger: Logger,
): { close(): Promise<void> } {
  if (bull && options.redisUrl) {
    return bull.startScheduledTasks(
      MAINTENANCE_QUEUE,
      options.redisUrl,
      tasks.map((t) => ({ ...t, everyMs: options.everyMs ?? t.everyMs })),
      { logger, prefix: options.queuePrefix },
    );
  }
  const timers = tasks.map((task) => {
    const timer = setInterval(
      () => void task.run().catch((err) => logger.warn({ err, task: task.name }, 'periodic task failed; will retry')),
      options.everyMs ?? task.everyMs,
    );
    timer.unref();
    return timer;
  });
  return {
    async close() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
