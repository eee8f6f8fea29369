// One feed's issues as a table: counts per level and code (a code filters the table), errors or
// warnings alone, each issue numbered as among all the feed's issues (from 1, as the developer page
// and the API number them), its listing linked to the listing's page.
import { api, query } from '../lib/api.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { useList } from '../ui/list-state.js';

const LIMIT = 100;

export function FeedIssues({ feedId }) {
  const list = useList((p) => api('GET', `/v1/admin/feeds/${feedId}/issues?${query(p)}`), { filters: { level: '', code: '' }, limit: LIMIT });
  const page = list.data;
  const filter = list.filters;
  if (!page) return html`<span class="muted">Loading issues…</span>`;
  if (page.counts.errors + page.counts.warnings === 0) return html`<span class="muted">No issues.</span>`;
  const pick = (key, value) => list.apply({ [key]: filter[key] === value ? '' : value });
  const chip = (label, active, onClick) =>
    html`<button type="button" class=${active ? 'chip active' : 'chip'} aria-pressed=${String(active)} onClick=${onClick}>${label}</button>`;
  // The listings search by its id: it finds the stored listing (an invalid one may never have been stored).
  const listingHref = (uniqueId) => `#/listings?q=${encodeURIComponent(uniqueId)}`;
  const columns = [
    { label: '#', num: true, cell: (i) => i.number },
    { label: 'Level', cell: (i) => html`<${Badge} status=${i.level} />` },
    { label: 'Code', cell: (i) => html`<code>${i.code}</code>` },
    {
      label: 'Listing',
      cell: (i) => html`${i.uniqueId ? html`<a href=${listingHref(i.uniqueId)}>${i.uniqueId}</a>` : '—'}
        ${i.listingIndex === null ? null : html`<div class="muted">listing ${i.listingIndex + 1} in the feed</div>`}`,
    },
    { label: 'Where', cell: (i) => html`<code class="path">${i.path}</code>` },
    { label: 'Message', cell: (i) => i.message },
  ];
  return html`<div class="issues">
    <div class="chips" role="group" aria-label="Filter issues">
      ${chip(`errors ${page.counts.errors}`, filter.level === 'error', () => pick('level', 'error'))}
      ${chip(`warnings ${page.counts.warnings}`, filter.level === 'warning', () => pick('level', 'warning'))}
      ${Object.entries(page.counts.byCode)
        .sort((a, b) => b[1] - a[1])
        .map(([code, n]) => chip(`${code} ${n}`, filter.code === code, () => pick('code', code)))}
    </div>
    <${DataTable} label="Issues of the feed" busy=${list.loading} columns=${columns} rows=${page.issues} rowAttrs=${(i) => ({ 'data-issue': i.number })} empty="No issues match." />
    <${Pager} offset=${list.offset} shown=${page.issues.length} total=${page.total} limit=${LIMIT} onPage=${list.page} noun="issue(s)" />
  </div>`;
}
