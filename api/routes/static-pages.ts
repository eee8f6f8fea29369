import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

/** api/pages in the repository (dist/api/routes is two levels below it). */
const PAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../api/pages');

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/**
 * Serves a page's files from api/pages, read once at start: each route path to its file there
 * (the type follows the file's ending). The pages call the JSON API; their scripts come only from
 * this origin (the Content-Security-Policy of every answer).
 */
export function staticPages(files: Record<string, string>, headers: Record<string, string> = {}): Router {
  const router = Router();
  for (const [path, file] of Object.entries(files)) {
    const body = readFileSync(resolve(PAGES, file), 'utf8');
    const type = TYPES[file.slice(file.lastIndexOf('.') + 1)];
    router.get(path, (_req, res) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.type(type).send(body);
    });
  }
  return router;
}
