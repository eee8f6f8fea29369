// Quarantine: circuit-breaker trips (open, or every one), what each would archive (the full list,
// paged, as it is now), linked to the office's feeds; applying the archive or keeping everything.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { act } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';

const HELD_PAGE = 50;

function Held({ item }) {
  const list = useList((p) => api('GET', `/v1/admin/quarantine/${item.id}/listings?${query(p)}`), { limit: HELD_PAGE });
  const page = list.data;
  const columns = [
    { label: 'Listing', cell: (l) => html`<a href=${`#/listings/${encodeURIComponent(item.office)}/${encodeURIComponent(l.uniqueId)}`}>${l.listingKey}</a>` },
    { label: 'Headline', cell: (l) => l.headline ?? '' },
    { label: 'Status now', cell: (l) => (l.status ? html`<${Badge} status=${l.status} />` : html`<span class="muted">no longer stored</span>`) },
    { label: 'Since the trip', cell: (l) => (l.writtenSince ? 'sent again: applying leaves it' : html`<span class="muted">not written</span>`) },
  ];
  return html`<div id="held">
    <h2>What the trip of ${item.office} would archive</h2>
    <${DataTable} label="Listings the trip would archive" busy=${list.loading} columns=${columns} rows=${page?.listings} rowAttrs=${(l) => ({ 'data-held': l.listingKey })} empty="Nothing held." />
    <${Pager} offset=${list.offset} shown=${page?.listings.length ?? 0} total=${page?.total} limit=${HELD_PAGE} onPage=${list.page} noun="listing(s)" />
  </div>`;
}

export function Quarantine() {
  const [held, setHeld] = useState(null);
  // The box follows the click at once; the list follows once its page has arrived.
  const [includeResolved, setIncludeResolved] = useState(false);
  const list = useList((p) => api('GET', `/v1/admin/quarantine?${query(p)}`), { filters: { includeResolved: 'false' }, sort: '-tripped', limit: 25 });
  const { data, reload } = list;
  const resolve = async (item, action) => {
    const question =
      action === 'apply'
        ? `Archive the ${item.archiveCount} listing(s) of office ${item.office} that the feed no longer carried? Check first that the feed was complete.`
        : `Mark this trip of office ${item.office} reviewed without archiving anything?`;
    if (!(await confirmFirst(question, { action: action === 'apply' ? 'Archive them' : 'Mark reviewed', danger: action === 'apply' }))) return;
    if (await act(() => api('POST', `/v1/admin/quarantine/${item.id}/resolve`, { action }), action === 'apply' ? 'Archive applied.' : 'Marked reviewed.'))
      reload();
  };
  const columns = [
    { label: 'Tripped', sort: '-tripped', cell: (i) => when(i.createdAt) },
    { label: 'Office', sort: 'office', cell: (i) => i.office },
    { label: 'Would archive', sort: '-archive', num: true, cell: (i) => `${i.archiveCount} of ${i.nonArchivedCount}` },
    {
      label: 'Feed',
      cell: (i) => html`<a href=${`#/feeds?office=${encodeURIComponent(i.office)}`} title=${`feed ${i.feedId}`}><code>${i.feedId.slice(0, 8)}</code></a>`,
    },
    {
      label: 'Listings it would archive',
      cell: (i) => {
        const all = [...i.keys, ...i.projectKeys];
        return html`<pre>${all.slice(0, 12).join('\n') + (all.length > 12 ? '\n…' : '')}</pre>
          ${i.keys.length ? html`<button type="button" onClick=${() => setHeld(i)}>All ${i.keys.length} listing(s)</button>` : null}`;
      },
    },
    { label: 'State', cell: (i) => html`<${Badge} status=${i.resolved ? (i.resolution ?? 'resolved') : 'open'} />` },
    {
      label: '',
      className: 'actions',
      cell: (i) =>
        i.resolved
          ? null
          : html`<button onClick=${() => resolve(i, 'review')}>Reviewed, keep</button><button class="danger" onClick=${() => resolve(i, 'apply')}>Apply archive</button>`,
    },
  ];
  return html`
    <div class="filters">
      <label class="check"><input type="checkbox" name="includeResolved" checked=${includeResolved} onChange=${(e) => {
        setIncludeResolved(e.currentTarget.checked);
        return list.apply({ includeResolved: String(e.currentTarget.checked) });
      }} /> Include resolved</label>
    </div>
    <${DataTable} label="Circuit-breaker trips" busy=${list.loading} columns=${columns} rows=${data?.items} rowAttrs=${(i) => ({ 'data-item': i.id })} sort=${list.sort} onSort=${list.sortBy} empty=${list.filters.includeResolved === 'true' ? 'No circuit-breaker trips yet.' : 'No open circuit-breaker trips.'} />
    <${Pager} offset=${list.offset} shown=${data?.items.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="trip(s)" />
    ${held ? html`<${Held} key=${held.id} item=${held} />` : null}`;
}
