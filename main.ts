import { startBanner, startWeb } from './api/web-role.js';
import { runProcess } from './workers/run-process.js';

/**
 * The all-in-one process (`npm start`): web and workers in one process, on the embedded
 * database and in-process queue by default. The SFTP watcher joins it when SFTP_URL is set.
 * Once it listens, a few plain lines on stderr tell the person who started it where to go.
 */
await runProcess('all-in-one', async (config, logger) => {
  const web = await startWeb(config, { logger, consume: true });
  process.stderr.write(startBanner(web, config.publicBaseUrl));
  return web;
});
