import { enableCompileCache, flushCompileCache } from 'node:module';

/**
 * The all-in-one process (`npm start`): web and workers in one process, on the embedded
 * database and in-process queue by default. The SFTP watcher joins it when SFTP_URL is set.
 * Once it listens, a few plain lines on stderr tell the person who started it where to go.
 * Built by the web role's composition root (api/web-role.ts) with consume.
 *
 * Two things make a start with nothing changed quick (docs/performance.md, Start), which is why
 * this file imports the service's modules itself, with import(), instead of at its top:
 * - Node's compile cache (in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it
 *   off) keeps V8's compiled code of every module, so a start does not parse the same 1,300
 *   modules again. It must be on before they load.
 * - The database is opened (PGlite: 0.5-1 s, part of it off this thread) before the web app's
 *   modules load, which goes on meanwhile; the composition root migrates and closes it.
 */
enableCompileCache();
const { runProcess } = await import('./workers/run-process.js');
await runProcess('all-in-one', async (config, logger) => {
  const { createRoleDb } = await import('./db/role-database.js');
  const ownDb = createRoleDb(config);
  const { startBanner, startWeb } = await import('./api/web-role.js');
  const web = await startWeb(config, { logger, consume: true, ownDb });
  process.stderr.write(startBanner(web, config.publicBaseUrl));
  // Written now rather than at exit, so that a process that is killed leaves it too.
  flushCompileCache();
  return web;
});
