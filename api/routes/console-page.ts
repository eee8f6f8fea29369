import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

/** The console's files live in api/pages/console (dist/api/routes is two levels below the repository). */
const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../api/pages/console');
const load = (name: string) => readFileSync(resolve(DIR, name), 'utf8');

/**
 * GET /console: the operator console, static files that call the admin API with the operator
 * token the operator signs in with (the page itself needs no credential; every call does).
 */
export function consolePageRouter(): Router {
  const router = Router();
  const files: Record<string, [string, string]> = {
    '/console': ['text/html; charset=utf-8', load('console.html')],
    '/console/console.js': ['text/javascript; charset=utf-8', load('console.js')],
    '/console/console.css': ['text/css; charset=utf-8', load('console.css')],
  };
  for (const [path, [type, body]] of Object.entries(files)) {
    router.get(path, (_req, res) => {
      res.setHeader('cache-control', 'no-cache');
      res.type(type).send(body);
    });
  }
  return router;
}
