import type { Db } from '../db/knex.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { JobQueue } from '../workers/job-queue.js';
import { sftpSettings } from './sftp-session.js';
import { SftpWatcher } from './watcher.js';

/** Starts the watcher from configuration (SFTP_URL set), polling until stopped. */
export function startSftpWatcher(config: Readonly<Config>, logger: Logger, db: Db, ingestQueue: JobQueue): SftpWatcher {
  if (!config.sftpUrl) throw new Error('SFTP_URL is not set');
  const settings = sftpSettings({ sftpUrl: config.sftpUrl, sftpPrivateKeyPath: config.sftpPrivateKeyPath, sftpHostFingerprint: config.sftpHostFingerprint });
  if (!settings.hostFingerprint) logger.warn('SFTP_INSECURE_ACCEPT_ANY_HOST=1: the SFTP host key is not verified');
  const watcher = new SftpWatcher({
    db,
    ingestQueue,
    logger: logger.child({ component: 'sftp-watcher' }),
    settings,
    pollMs: config.sftpPollMs,
    maxBytes: config.feedMaxBytes,
    officeShare: config.sftpOfficeShare,
    claimsPerPoll: config.sftpClaimsPerPoll,
  });
  watcher.start();
  logger.info(
    {
      host: settings.host,
      port: settings.port,
      root: settings.root,
      pollMs: config.sftpPollMs,
      officeShare: config.sftpOfficeShare,
      claimsPerPoll: config.sftpClaimsPerPoll,
    },
    'sftp watcher started',
  );
  return watcher;
}
