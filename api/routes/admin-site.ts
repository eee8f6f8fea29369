import { recordAudit } from '../../db/operators.js';
import type { NavLink, PageInput } from '../../db/site.js';
import {
  checkedLink,
  createPage,
  deletePage,
  listPages,
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

const slugInUse = (err: unknown) => (err instanceof SlugInUse ? new HttpError(409, `slug "${err.message}" is already used by another page`) : err);

import { answer, errorResponse, json, uuidPath } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/** Operator routes for site content (behind the operator credential); every change is audited. */
const page = (name: string) => ({ description: name, content: json('Page') });

export const adminSiteRoutes: RouteSpec[] = [
  {
    method: 'put',
    path: '/v1/admin/site/settings',
    operationId: 'adminSetSiteSetting',
    tag: 'site',
    auth: 'operator',
    summary: 'Set identity, seo or favicon',
    body: 'SiteSettingRequest',
    responses: { 200: answer('Every setting after the change', 'SiteSettings'), 400: errorResponse('Invalid body') },
    handle: ({ db }, { validBody }) => [
      jsonBody('512kb'),
      async (req, res) => {
        const body = validBody<{ key: SettingKey; value: Record<string, unknown> }>(req);
        const { value, refused } = cleanUrls(body.value, 'body.value');
        if (refused.length)
          throw badRequest(`${refused.join(', ')}: an address must be an http(s) URL or a path on this site (javascript:, data: and the like are refused)`);
        await putSetting(db, body.key, value as Record<string, unknown>);
        await recordAudit(db, { actor: operatorOf(res), action: 'site.settings', target: body.key });
        res.json({ settings: await settings(db) });
      },
    ],
  },
  {
    method: 'put',
    path: '/v1/admin/site/nav',
    operationId: 'adminSetNavigation',
    tag: 'site',
    auth: 'operator',
    summary: 'Replace the navigation (an empty list restores the default)',
    body: 'NavRequest',
    responses: { 200: answer('The navigation after the change', 'Navigation'), 400: errorResponse('Invalid body') },
    handle: ({ db }, { validBody }) => [
      jsonBody('512kb'),
      async (req, res) => {
        const body = validBody<{ links: NavLink[] }>(req);
        const checked = body.links.map((link, i) => {
          const valid = checkedLink(link);
          if (!valid) throw badRequest(`body.links[${i}].ref: a custom link must be an http(s) URL or a path on this site`);
          return valid;
        });
        const links = await putNavigation(db, checked);
        await recordAudit(db, { actor: operatorOf(res), action: 'site.navigation', details: { links: body.links.length } });
        res.json({ navigation: links });
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/admin/site/pages',
    operationId: 'adminListPages',
    tag: 'site',
    auth: 'operator',
    summary: 'All pages, drafts included',
    responses: { 200: answer('Every page', 'PageList') },
    handle:
      ({ db }) =>
      async (_req, res) => {
        res.json({ pages: await listPages(db, { publishedOnly: false }) });
      },
  },
  {
    method: 'post',
    path: '/v1/admin/site/pages',
    operationId: 'adminCreatePage',
    tag: 'site',
    auth: 'operator',
    summary: 'Create a page',
    body: 'PageCreate',
    responses: { 200: page('The page'), 400: errorResponse('Invalid body'), 409: errorResponse('Slug in use') },
    handle: ({ db }, { validBody }) => [
      jsonBody('512kb'),
      async (req, res) => {
        const body = validBody<Required<Pick<PageInput, 'slug' | 'title' | 'body'>> & PageInput>(req);
        const page = await createPage(db, body).catch((err) => Promise.reject(slugInUse(err)));
        await recordAudit(db, { actor: operatorOf(res), action: 'page.create', target: page.id, details: { slug: page.slug } });
        res.json(page);
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/admin/site/pages/{slug}',
    operationId: 'adminGetPage',
    tag: 'site',
    auth: 'operator',
    summary: 'A page by slug, draft or published',
    parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 80 } }],
    responses: { 200: page('The page'), 404: errorResponse('Unknown slug') },
    handle:
      ({ db }) =>
      async (req, res) => {
        const slug = String(req.params.slug);
        const page = slug.length <= 80 ? await pageBySlug(db, slug, { publishedOnly: false }) : null;
        if (!page) throw notFound(`no page ${slug.slice(0, 80)}`);
        res.json(page);
      },
  },
  {
    method: 'put',
    path: '/v1/admin/site/pages/id/{id}',
    operationId: 'adminUpdatePage',
    tag: 'site',
    auth: 'operator',
    summary: 'Update a page (any of its fields)',
    parameters: [uuidPath('id', 'Page id')],
    body: 'PageUpdate',
    responses: {
      200: page('The page'),
      400: errorResponse('Invalid body'),
      404: errorResponse('Unknown page'),
      409: errorResponse('Slug in use'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('512kb'),
      async (req, res) => {
        const id = uuidParam(req.params.id, 'page');
        const body = validBody<PageInput>(req);
        const page = await updatePage(db, id, body).catch((err) => Promise.reject(slugInUse(err)));
        if (!page) throw notFound(`no page ${id}`);
        await recordAudit(db, { actor: operatorOf(res), action: 'page.update', target: id, details: { fields: Object.keys(body) } });
        res.json(page);
      },
    ],
  },
  {
    method: 'delete',
    path: '/v1/admin/site/pages/id/{id}',
    operationId: 'adminDeletePage',
    tag: 'site',
    auth: 'operator',
    summary: 'Delete a page',
    parameters: [uuidPath('id', 'Page id')],
    responses: { 200: answer('Deleted', 'PageDeleted'), 404: errorResponse('Unknown page') },
    handle:
      ({ db }) =>
      async (req, res) => {
        const id = uuidParam(req.params.id, 'page');
        const page = await deletePage(db, id);
        if (!page) throw notFound(`no page ${id}`);
        await recordAudit(db, { actor: operatorOf(res), action: 'page.delete', target: id, details: { slug: page.slug } });
        res.json({ deleted: id });
      },
  },
];
