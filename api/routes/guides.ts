import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { marked } from 'marked';
import { notFound } from '../../lib/errors.js';

/** The guides are the repository's docs/*.md (dist/api/routes is two levels below the repository). */
const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs');

/** The guides served at /guides/{name}, in the order the API description lists them. */
export const GUIDES: [name: string, title: string][] = [
  ['ingestion', 'Ingestion: keys, feeds, reconcile, quarantine, failure'],
  ['formats', 'RESO Web API and project documents'],
  ['reaxml-elements', 'REAXML elements: where each one goes'],
  ['issue-codes', 'Validation issue codes'],
  ['reads', 'Public reads: search and directory'],
  ['reso', 'RESO Web API: replication for RESO clients'],
  ['leads', 'Leads: enquiries and their delivery'],
  ['alerts', 'Alerts: saved searches mailed to buyers'],
  ['operators', 'Operators: credentials, console, dashboard'],
  ['sftp', 'SFTP drops'],
  ['security', 'Limits and defences'],
  ['architecture', 'Architecture: how the service is built, and why'],
];

export const GUIDE_STYLE =
  'body{font:16px/1.55 system-ui,sans-serif;color:#1c2530;background:#fafafa;margin:0}main{max-width:52rem;margin:0 auto;padding:1.5rem 2rem 4rem}' +
  'table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{border:1px solid #dde2e8;padding:.35rem .5rem;text-align:left;vertical-align:top}' +
  'code{font-family:ui-monospace,monospace;font-size:.88em;background:#eef1f5;padding:0 .2em;border-radius:3px}pre{background:#eef1f5;padding:.75rem;overflow:auto}pre code{background:none}' +
  'nav{font-size:.9rem;margin-bottom:1rem}a{color:#1f5fbf}';

/**
 * A guide rendered to a page of its own; links between guides point at their pages. Rendered when
 * first asked for, then kept: rendering all of them took about 200 ms of every web process's start.
 */
function renderGuide(name: string, title: string): string {
  const markdown = readFileSync(resolve(DOCS, `${name}.md`), 'utf8').replace(/\]\((?:docs\/)?([a-z-]+)\.md\)/g, '](/guides/$1)');
  const body = marked.parse(markdown, { async: false });
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · Listing service</title><link rel="icon" href="data:,"><style>${GUIDE_STYLE}</style></head>` +
    `<body><main><nav><a href="/docs/">API reference</a> · ${GUIDES.map(([n, t]) => (n === name ? `<strong>${t.split(':')[0]}</strong>` : `<a href="/guides/${n}">${t.split(':')[0]}</a>`)).join(' · ')}</nav>${body}</main></body></html>`
  );
}

/** GET /guides/{name}: the service's guides (docs/*.md) as pages, linked from the API description. */
export function guidesRouter(): Router {
  const router = Router();
  const pages = new Map<string, string>();
  router.get('/guides/:name', (req, res) => {
    const name = String(req.params.name);
    const title = GUIDES.find(([n]) => n === name)?.[1];
    if (title && !pages.has(name)) pages.set(name, renderGuide(name, title));
    const page = title && pages.get(name);
    if (!page) throw notFound(`no guide ${req.params.name}; the guides are ${GUIDES.map(([n]) => n).join(', ')}`);
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
    res.type('text/html; charset=utf-8').send(page);
  });
  return router;
}
