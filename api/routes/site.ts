import { Router } from 'express';
import type { Knex } from 'knex';
import { recordAudit } from '../../db/operators.js';
import type { NavLink, PageInput } from '../../db/site.js';
import {
  checkedLink,
  createPage,
  deletePage,
  listPages,
  navigation,
  pageBySlug,
  putNavigation,
  putSetting,
  type SettingKey,
  SlugInUse,
  settings,
  updatePage,
} from '../../db/site.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { cleanUrls } from '../../lib/safe-url.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { uuidParam } from '../path-params.js';
import { assertValid } from '../validators.js';

const slugInUse = (err: unknown) => (err instanceof SlugInUse ? new HttpError(409, `slug "${err.message}" is already used by another page`) : err);
const json = jsonBody('512kb');

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

/** Operator routes for site content (behind the operator credential); every change is audited. */
export function adminSiteRouter(db: Knex): Router {
  const router = Router();

  router.put('/v1/admin/site/settings', json, async (req, res) => {
    const body = assertValid<{ key: SettingKey; value: Record<string, unknown> }>('SiteSettingRequest', req.body ?? null, 'body');
    const { value, refused } = cleanUrls(body.value, 'body.value');
    if (refused.length)
      throw badRequest(`${refused.join(', ')}: an address must be an http(s) URL or a path on this site (javascript:, data: and the like are refused)`);
    await putSetting(db, body.key, value as Record<string, unknown>);
    await recordAudit(db, { actor: operatorOf(res), action: 'site.settings', target: body.key });
    res.json({ settings: await settings(db) });
  });

  router.put('/v1/admin/site/nav', json, async (req, res) => {
    const body = assertValid<{ links: NavLink[] }>('NavRequest', req.body ?? null, 'body');
    const checked = body.links.map((link, i) => {
      const valid = checkedLink(link);
      if (!valid) throw badRequest(`body.links[${i}].ref: a custom link must be an http(s) URL or a path on this site`);
      return valid;
    });
    const links = await putNavigation(db, checked);
    await recordAudit(db, { actor: operatorOf(res), action: 'site.navigation', details: { links: body.links.length } });
    res.json({ navigation: links });
  });

  router.get('/v1/admin/site/pages', async (_req, res) => {
    res.json({ pages: await listPages(db, { publishedOnly: false }) });
  });

  router.post('/v1/admin/site/pages', json, async (req, res) => {
    const body = assertValid<Required<Pick<PageInput, 'slug' | 'title' | 'body'>> & PageInput>('PageCreate', req.body ?? null, 'body');
    const page = await createPage(db, body).catch((err) => Promise.reject(slugInUse(err)));
    await recordAudit(db, { actor: operatorOf(res), action: 'page.create', target: page.id, details: { slug: page.slug } });
    res.json(page);
  });

  router.get('/v1/admin/site/pages/:slug', async (req, res) => {
    const slug = String(req.params.slug);
    const page = slug.length <= 80 ? await pageBySlug(db, slug, { publishedOnly: false }) : null;
    if (!page) throw notFound(`no page ${slug.slice(0, 80)}`);
    res.json(page);
  });

  router.put('/v1/admin/site/pages/id/:id', json, async (req, res) => {
    const id = uuidParam(req.params.id, 'page');
    const body = assertValid<PageInput>('PageUpdate', req.body ?? null, 'body');
    const page = await updatePage(db, id, body).catch((err) => Promise.reject(slugInUse(err)));
    if (!page) throw notFound(`no page ${id}`);
    await recordAudit(db, { actor: operatorOf(res), action: 'page.update', target: id, details: { fields: Object.keys(body) } });
    res.json(page);
  });

  router.delete('/v1/admin/site/pages/id/:id', async (req, res) => {
    const id = uuidParam(req.params.id, 'page');
    const page = await deletePage(db, id);
    if (!page) throw notFound(`no page ${id}`);
    await recordAudit(db, { actor: operatorOf(res), action: 'page.delete', target: id, details: { slug: page.slug } });
    res.json({ deleted: id });
  });

  return router;
}
