import { runProcess } from '../workers/run-process.js';
import { startSftpRole } from './sftp-role.js';

/** The sftp role (Procfile `sftp`): built by sftp-role.ts. */
await runProcess('sftp', (config, logger) => startSftpRole(config, { logger }));
