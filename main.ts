import { startWeb } from './api/server.js';
import { runProcess } from './workers/run-process.js';

/**
 * The all-in-one process (`npm start`): web and workers in one process, on the embedded
 * database and in-process queue by default. The SFTP watcher joins it when SFTP_URL is set.
 */
await runProcess('all-in-one', (config, logger) => startWeb(config, logger, { consume: true }));
