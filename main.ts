import { startWeb } from './api/server.js';
import { runProcess } from './lib/run-process.js';

/**
 * The all-in-one process (`npm start`): the web role on the embedded database by default.
 * Workers and the SFTP watcher join this process as they are built (see workers/README.md).
 */
await runProcess('all-in-one', startWeb);
