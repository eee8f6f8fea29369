import { runProcess } from '../workers/run-process.js';
import { startWeb } from './web-role.js';

/**
 * The web role (Procfile `web`): HTTP only when REDIS_URL is set, the workers running in `worker`
 * processes; without REDIS_URL nothing else could run its jobs, so it runs them itself.
 */
await runProcess('web', (config, logger) => startWeb(config, { logger, consume: !config.redisUrl }));
