import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

/** The page files live in api/pages (beside the sources; dist/api/routes is two levels below the repository). */
const PAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../api/pages');

const load = (name: string) => readFileSync(resolve(PAGES, name), 'utf8');

/**
 * GET /developer (DESIGN.md §5): request a feed key and dry-run a feed in a browser. Static files
 * that call the JSON API; scripts only from this origin.
 */
export function developerPageRouter(): Router {
  const router = Router();
  const files: Record<string, [string, string]> = {
    '/developer': ['text/html; charset=utf-8', load('developer.html')],
    '/developer/developer.js': ['text/javascript; charset=utf-8', load('developer.js')],
    '/developer/developer.css': ['text/css; charset=utf-8', load('developer.css')],
  };
  for (const [path, [type, body]] of Object.entries(files)) {
    router.get(path, (_req, res) => {
      res.setHeader(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
      );
      res.type(type).send(body);
    });
  }
  return router;
}
