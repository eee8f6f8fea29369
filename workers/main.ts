import { runProcess } from './run-process.js';
import { startWorkerRole } from './worker-role.js';

/**
 * The worker role (Procfile `worker`): BullMQ consumers for every queue, plus the periodic tasks
 * (lost feeds re-queued, the notification outbox sent). Built by worker-role.ts.
 */
await runProcess('worker', (config, logger) => startWorkerRole(config, { logger }));
