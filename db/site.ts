import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { cleanUrls, linkTarget } from '../lib/safe-url.js';
import { isUniqueViolation } from './pg-errors.js';
import { camelColumns, iso } from './row-values.js';
import type * as Row from './rows.js';

/** A navigation link as stored (schema NavLink in the API description). */
export interface NavLink {
  kind: 'builtin' | 'page' | 'custom';
  ref: string;
  label: Record<string, string> | null;
  visible: boolean;
  newTab: boolean;
}

/** What an editor writes of a page, as site_pages stores it. */
type PageContent = Pick<Row.SitePage, 'slug' | 'title' | 'body' | 'description' | 'published'>;

/** A page as written (schema PageInput): any of its content. */
export type PageInput = Partial<PageContent>;

/** Shown when no navigation was set, and restored by an empty list (docs/architecture.md, Site content and FX). */
export const DEFAULT_NAVIGATION: NavLink[] = (['listings', 'agents', 'offices'] as const).map((ref) => ({
  kind: 'builtin',
  ref,
  label: null,
  visible: true,
  newTab: false,
}));

export type SettingKey = 'identity' | 'seo' | 'favicon';

/** A page as the API shows it (schema Page): its row with the times as ISO strings. */
export interface Page extends PageContent {
  id: string;
  createdAt: string;
  updatedAt: string;
}

const toPage = (r: Row.SitePage): Page => ({
  ...camelColumns(r, ['id', 'slug', 'title', 'body', 'published']),
  description: r.description ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export async function putSetting(db: Knex, key: SettingKey, value: Record<string, unknown>): Promise<void> {
  await db('site_settings')
    .insert({ key, value: JSON.stringify(value), updated_at: db.fn.now() })
    .onConflict('key')
    .merge();
}

/** The settings; an address stored before addresses were checked that is not http(s) or a site path reads as null. */
export async function settings(db: Knex): Promise<Record<SettingKey, Record<string, unknown>>> {
  const rows = await db('site_settings').select('key', 'value');
  const found = Object.fromEntries(rows.map((r: Pick<Row.SiteSetting, 'key' | 'value'>) => [r.key, cleanUrls(r.value).value as Record<string, unknown>]));
  return { identity: found.identity ?? {}, seo: found.seo ?? {}, favicon: found.favicon ?? {} };
}

/** Stores the navigation; an empty list stores "default". Returns what is now in effect. */
export async function putNavigation(db: Knex, links: NavLink[]): Promise<NavLink[]> {
  const stored = links.length ? JSON.stringify(links) : null;
  await db('site_navigation').insert({ id: 1, links: stored, updated_at: db.fn.now() }).onConflict('id').merge();
  return links.length ? links : DEFAULT_NAVIGATION;
}

/** The navigation in effect; a custom link stored before links were checked that is not http(s) or a site path is left out. */
export async function navigation(db: Knex): Promise<NavLink[]> {
  const row = await db('site_navigation').where({ id: 1 }).first('links');
  const links: NavLink[] = row?.links ?? DEFAULT_NAVIGATION;
  return links.flatMap((link) => checkedLink(link) ?? []);
}

/** A navigation link whose custom URL is http(s) or a site path (serialised); null when it is neither. */
export function checkedLink(link: NavLink): NavLink | null {
  if (link.kind !== 'custom') return link;
  const ref = linkTarget(link.ref);
  return ref ? { ...link, ref } : null;
}

/** Thrown when a slug is taken (the caller answers 409). */
export class SlugInUse extends Error {}

export async function createPage(db: Knex, input: Required<Pick<PageInput, 'slug' | 'title' | 'body'>> & PageInput): Promise<Page> {
  try {
    const [row] = await db('site_pages')
      .insert({
        id: randomUUID(),
        slug: input.slug,
        title: JSON.stringify(input.title),
        body: JSON.stringify(input.body),
        description: input.description ? JSON.stringify(input.description) : null,
        published: input.published ?? false,
      })
      .returning('*');
    return toPage(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new SlugInUse(input.slug);
    throw err;
  }
}

/** Applies the given fields; null for an unknown id. */
export async function updatePage(db: Knex, id: string, input: PageInput): Promise<Page | null> {
  const changes: Record<string, unknown> = { updated_at: db.fn.now() };
  if (input.slug !== undefined) changes.slug = input.slug;
  for (const field of ['title', 'body'] as const) if (input[field] !== undefined) changes[field] = JSON.stringify(input[field]);
  if (input.description !== undefined) changes.description = input.description === null ? null : JSON.stringify(input.description);
  if (input.published !== undefined) changes.published = input.published;
  try {
    const [row] = await db('site_pages').where({ id }).update(changes).returning('*');
    return row ? toPage(row) : null;
  } catch (err) {
    if (isUniqueViolation(err)) throw new SlugInUse(input.slug!);
    throw err;
  }
}

export async function deletePage(db: Knex, id: string): Promise<Page | null> {
  const [row] = await db('site_pages').where({ id }).del().returning('*');
  return row ? toPage(row) : null;
}

export async function listPages(db: Knex, options: { publishedOnly: boolean }): Promise<Page[]> {
  const q = db('site_pages').orderBy('slug');
  if (options.publishedOnly) q.where({ published: true });
  return (await q).map(toPage);
}

export async function pageBySlug(db: Knex, slug: string, options: { publishedOnly: boolean }): Promise<Page | null> {
  const q = db('site_pages').where({ slug });
  if (options.publishedOnly) q.where({ published: true });
  const row = await q.first();
  return row ? toPage(row) : null;
}
