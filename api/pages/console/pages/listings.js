// Listings: every stored listing (hidden and unpublished included), searched by key, address,
// headline or agent name, filtered by office, status and visibility, sorted and paged; each opens
// its own page; hiding or showing one in every public read.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { addressLine, text, when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { act } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';

const STATUSES = ['', 'active', 'under_offer', 'sold', 'leased', 'withdrawn', 'off_market', 'archived'];

export const listingHref = (l) => `#/listings/${encodeURIComponent(l.office)}/${encodeURIComponent(l.uniqueId)}`;

/** Hides a listing from every public read, or shows it again; true when done. */
export async function toggleHidden(l) {
  if (!l.hidden && !(await confirmFirst(`Hide ${l.listingKey} from every public read?`, { action: 'Hide' }))) return false;
  return Boolean(
    await act(
      () => api('POST', '/v1/admin/listings/visibility', { officeId: l.office, uniqueId: l.uniqueId, hidden: !l.hidden }),
      `${l.listingKey} is ${l.hidden ? 'visible again' : 'hidden'}.`,
    ),
  );
}

export function Listings({ params }) {
  const initial = { q: params.get('q') ?? '', office: params.get('office') ?? '', status: '', hidden: '' };
  const [form, setForm] = useState(initial);
  const list = useList((p) => api('GET', `/v1/admin/listings?${query({ ...p, q: p.q.trim(), office: p.office.trim() })}`), {
    filters: initial,
    sort: '-updated',
  });
  const { data, reload } = list;
  const set = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  const columns = [
    { label: 'Listing', sort: 'key', cell: (l) => html`<a href=${listingHref(l)}><code>${l.listingKey}</code></a>` },
    { label: 'Headline', cell: (l) => text(l.headline) },
    { label: 'Address', cell: (l) => addressLine(l.address) },
    { label: 'Status', sort: 'status', cell: (l) => html`<${Badge} status=${l.status} />${l.hidden ? html` <${Badge} status="hidden" />` : null}` },
    { label: 'Public', cell: (l) => (l.public ? 'yes' : 'no') },
    { label: 'Changed', sort: '-updated', cell: (l) => when(l.updatedAt) },
    {
      label: '',
      className: 'actions',
      cell: (l) =>
        html`<button class=${l.hidden ? 'primary' : 'danger'} onClick=${async () => (await toggleHidden(l)) && reload()}>${l.hidden ? 'Show' : 'Hide'}</button>`,
    },
  ];
  return html`
    <form class="filters" onSubmit=${(e) => {
      e.preventDefault();
      return list.apply(form);
    }}>
      <label>Search <input name="q" placeholder="key, address or headline" size="30" value=${form.q} onInput=${set('q')} /></label>
      <label>Office <input name="office" placeholder="office id" value=${form.office} onInput=${set('office')} /></label>
      <label>Status <select name="status" value=${form.status} onChange=${set('status')}>${STATUSES.map((s) => html`<option value=${s}>${s ? s.replace(/_/g, ' ') : 'any status'}</option>`)}</select></label>
      <label>Visibility <select name="hidden" value=${form.hidden} onChange=${set('hidden')}>
        <option value="">hidden or not</option><option value="true">hidden only</option><option value="false">visible only</option>
      </select></label>
      <button type="submit">Search</button>
    </form>
    <p class="muted">Search finds the listing key, address, headline or an agent's name.</p>
    <${DataTable} label="Listings" busy=${list.loading} columns=${columns} rows=${data?.listings} rowAttrs=${(l) => ({ 'data-listing': l.listingKey })} sort=${list.sort} onSort=${list.sortBy} empty="No listings match." />
    <${Pager} offset=${list.offset} shown=${data?.listings.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="listing(s)" />`;
}
