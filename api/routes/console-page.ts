import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

/** The repository (dist/api/routes is three levels below it). */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CONSOLE = resolve(ROOT, 'api/pages/console');

/**
 * The console's view library and chart library, served as their packages ship them (no build
 * step, no CDN): the import map in console.html names them for the console's modules.
 */
const VENDOR: Record<string, string> = {
  'preact.mjs': 'node_modules/preact/dist/preact.mjs',
  'hooks.mjs': 'node_modules/preact/hooks/dist/hooks.mjs',
  'htm.mjs': 'node_modules/htm/dist/htm.mjs',
  'uPlot.esm.js': 'node_modules/uplot/dist/uPlot.esm.js',
  'uPlot.min.css': 'node_modules/uplot/dist/uPlot.min.css',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
const typeOf = (file: string) => TYPES[file.slice(file.lastIndexOf('.') + 1)];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(resolve(dir, entry.name)) : [resolve(dir, entry.name)],
  );
}

/**
 * The page's Content-Security-Policy: scripts only from this origin plus the one inline import
 * map (by its hash); images also over https (listing photos live on the agencies' servers).
 */
function policyFor(html: string): string {
  const map = html.match(/<script type="importmap">([\s\S]*?)<\/script>/);
  if (!map) throw new Error('console.html has no import map');
  const hash = createHash('sha256').update(map[1]).digest('base64');
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data: https:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * GET /console and its modules: the operator console, static files (read once at start) that
 * call the admin API with the token the operator signs in with (the page itself needs no
 * credential; every call does).
 */
export function consolePageRouter(): Router {
  const router = Router();
  const html = readFileSync(resolve(CONSOLE, 'console.html'), 'utf8');
  const policy = policyFor(html);
  const send = (path: string, body: string, type: string) =>
    router.get(path, (_req, res) => {
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('content-security-policy', policy);
      res.type(type).send(body);
    });
  send('/console', html, TYPES.html);
  for (const file of filesUnder(CONSOLE)) {
    const type = typeOf(file);
    if (!type || file.endsWith('.html')) continue;
    send(`/console/${relative(CONSOLE, file).split('\\').join('/')}`, readFileSync(file, 'utf8'), type);
  }
  for (const [name, file] of Object.entries(VENDOR)) send(`/console/vendor/${name}`, readFileSync(resolve(ROOT, file), 'utf8'), typeOf(name));
  return router;
}
