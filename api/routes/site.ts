import { listPages, navigation, pageBySlug, settings } from '../../db/site.js';
import { notFound } from '../../lib/errors.js';

import { errorResponse, json, ref } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
/** Public site content: settings, navigation and published pages (docs/architecture.md, Site content and FX). */
export const siteRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/site',
    operationId: 'getSite',
    tag: 'site',
    auth: 'none',
    summary: 'Settings, navigation and published pages',
    responses: { 200: { description: 'The site', content: json('Site') }, 503: errorResponse('Database unavailable') },
    handle:
      ({ readDb: db }) =>
      async (_req, res) => {
        const [s, nav, pages] = await Promise.all([settings(db), navigation(db), listPages(db, { publishedOnly: true })]);
        res.json({ settings: s, navigation: nav, pages: pages.map((p) => ({ id: p.id, slug: p.slug, title: p.title, description: p.description })) });
      },
  },
  {
    method: 'get',
    path: '/v1/site/pages/{slug}',
    operationId: 'getSitePage',
    tag: 'site',
    auth: 'none',
    summary: 'A published page',
    parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 80 } }],
    responses: {
      200: { description: 'The page', content: { 'application/json': { schema: ref('Page') } } },
      404: errorResponse('Unknown or unpublished'),
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ readDb: db }) =>
      async (req, res) => {
        const slug = String(req.params.slug);
        const page = slug.length <= 80 ? await pageBySlug(db, slug, { publishedOnly: true }) : null;
        if (!page) throw notFound(`no published page ${slug.slice(0, 80)}`);
        res.json(page);
      },
  },
];
