import { Router } from 'express';
import type { Knex } from 'knex';
import { listPages, navigation, pageBySlug, settings } from '../../db/site.js';
import { notFound } from '../../lib/errors.js';

/** Public site content: settings, navigation and published pages (docs/architecture.md, Site content and FX). */
export function siteRouter(db: Knex): Router {
  const router = Router();
  router.get('/v1/site', async (_req, res) => {
    const [s, nav, pages] = await Promise.all([settings(db), navigation(db), listPages(db, { publishedOnly: true })]);
    res.json({ settings: s, navigation: nav, pages: pages.map((p) => ({ id: p.id, slug: p.slug, title: p.title, description: p.description })) });
  });
  router.get('/v1/site/pages/:slug', async (req, res) => {
    const slug = String(req.params.slug);
    const page = slug.length <= 80 ? await pageBySlug(db, slug, { publishedOnly: true }) : null;
    if (!page) throw notFound(`no published page ${slug.slice(0, 80)}`);
    res.json(page);
  });
  return router;
}
