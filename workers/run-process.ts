import closeWithGrace from 'close-with-grace';
import { type Config, loadConfigOrReport } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { closeReadThreads, configureReadThreads } from '../pipeline/reaxml/read-threads.js';

/**
 * The common start of every process role (web, worker, sftp, all-in-one; it lives with the worker
 * side because every role may read feeds on the reading threads it configures): configuration (every problem reported before exit),
 * logger, the role's own start, then graceful shutdown on SIGTERM/SIGINT.
 */
export async function runProcess(role: string, start: (config: Readonly<Config>, logger: Logger) => Promise<{ close(): Promise<void> }>): Promise<void> {
  const config = loadConfigOrReport();
  if (!config) process.exit(1);
  const logger = createLogger(config.logLevel).child({ role });
  configureReadThreads(config.readThreads);
  let handle: { close(): Promise<void> };
  try {
    handle = await start(config, logger);
  } catch (err) {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  }
  const close = closeWithGrace({ delay: 25000 }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    await handle.close();
    await closeReadThreads();
    logger.info('stopped');
  });
  watchParent(logger, () => close.close());
}

/**
 * Stops the process, as SIGTERM does, when the process that started it is gone: `npm start` runs
 * the service under a shell, and a SIGTERM to npm can end the shell and leave the service running
 * alone, holding the embedded database. Only for processes started by a package script (npm sets
 * npm_lifecycle_event); a service started by a supervisor directly is never reparented.
 */
function watchParent(logger: Logger, stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    logger.warn({ parent }, 'the process that started this one is gone; shutting down');
    stop();
  }, 1000);
  timer.unref();
}
