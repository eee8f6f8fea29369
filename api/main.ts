import { runProcess } from '../workers/run-process.js';
import { startWeb } from './server.js';

/** The web role (Procfile `web`): HTTP only when REDIS_URL is set; workers run in `worker` processes. */
await runProcess('web', (config, logger) => startWeb(config, logger, { consume: false }));
