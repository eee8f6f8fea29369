// One listing as stored, readably: price, address, hero image, agents, status history, whether
// the public sees it and why not, the newest feed that carried it and that feed's issues for it.
import { api } from '../lib/api.js';
import { addressLine, text, when, words } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { DataTable } from '../ui/data-table.js';
import { useLoad } from '../ui/use-load.js';
import { toggleHidden } from './listings.js';

const money = (amount, currency) =>
  amount === null || amount === undefined ? null : new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);

function priceLine(l) {
  const p = l.saleMode === 'rent' ? l.rent : l.price;
  if (!p) return 'No price given.';
  const amount = money(p.amount, p.currency);
  const per = l.saleMode === 'rent' ? ` per ${p.period}` : '';
  const shown = p.display ? (p.displayRange ? 'the public sees the range' : 'the public sees the amount') : 'withheld: the public never sees the amount';
  return `${amount ?? 'no amount'}${per}${p.text ? ` · shown as “${p.text}”` : ''} (${shown})`;
}

const Row = ({ label, children }) => html`<div class="kv"><dt>${label}</dt><dd>${children}</dd></div>`;

export function ListingDetail({ office, uniqueId }) {
  const path = `/v1/admin/listings/${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}/review`;
  const { data, reload } = useLoad(() => api('GET', path), [path]);
  if (!data) return html`<p class="muted"><a href="#/listings">← Listings</a></p>`;
  const { listing: l, lastFeed, statusHistory } = data;
  const issues = lastFeed?.issues ?? [];
  const hero = l.media.find((m) => m.hero && m.url) ?? l.media.find((m) => m.kind === 'photo' && m.url);
  const issueColumns = [
    { label: 'Level', cell: (i) => html`<${Badge} status=${i.level} />` },
    { label: 'Code', cell: (i) => html`<code>${i.code}</code>` },
    { label: 'Where', cell: (i) => html`<code class="path">${i.path}</code>` },
    { label: 'Message', cell: (i) => i.message },
  ];
  const historyColumns = [
    { label: 'When', cell: (h) => when(h.at) },
    { label: 'From', cell: (h) => html`<${Badge} status=${h.from} />` },
    { label: 'To', cell: (h) => html`<${Badge} status=${h.to} />` },
    { label: 'Feed', cell: (h) => html`<a href=${`#/feeds?office=${encodeURIComponent(l.office)}`}><code>${h.feedId.slice(0, 8)}</code></a>` },
  ];
  return html`<p class="muted"><a href="#/listings">← Listings</a></p>
    <div class="detail-head">
      ${hero ? html`<img class="hero" src=${hero.url} alt=${`Hero image of ${l.listingKey}`} loading="lazy" />` : html`<div class="hero none">No image</div>`}
      <div>
        <h2 class="listing-title">${text(l.headline) || l.listingKey}</h2>
        <p><code>${l.listingKey}</code> · <${Badge} status=${l.status} /> ${l.hidden ? html`<${Badge} status="hidden" />` : null}</p>
        <p id="visibility" class=${data.public.inSearch ? 'public yes' : 'public no'}>${data.public.inSearch ? 'Public: in search, and read by its address.' : `Not in public search: ${data.public.explanation}.`}</p>
        ${data.quarantine ? html`<p class="public no">A circuit-breaker trip holds its archive for review: <a href="#/quarantine">quarantine</a>.</p>` : null}
        <button class=${l.hidden ? 'primary' : 'danger'} onClick=${async () => (await toggleHidden(l)) && reload()}>${l.hidden ? 'Show' : 'Hide'}</button>
      </div>
    </div>
    <div class="panel">
      <dl class="kvs">
        <${Row} label="Price">${priceLine(l)}<//>
        ${l.sold ? html`<${Row} label="Sold">${money(l.sold.price?.amount, l.sold.price?.currency ?? 'AUD') ?? 'price not given'}${l.sold.date ? ` on ${l.sold.date}` : ''}<//>` : null}
        <${Row} label="Address">${addressLine(l.address) || '—'}${l.address && l.address.display === false ? ' (street withheld from the public)' : ''}<//>
        <${Row} label="Kind">${words(l.category)}${l.subCategory ? ` · ${l.subCategory}` : ''} · for ${l.saleMode}<//>
        <${Row} label="Rooms">${[l.bedrooms === null ? null : `${l.bedrooms} bed`, l.bathrooms === null ? null : `${l.bathrooms} bath`].filter(Boolean).join(' · ') || '—'}<//>
        <${Row} label="Agents">${l.agents.length ? l.agents.map((a) => html`<div>${a.name ?? 'unnamed'}${a.email ? ` · ${a.email}` : ''}${a.phones.length ? ` · ${a.phones.map((p) => p.number).join(', ')}` : ''}</div>`) : '—'}<//>
        <${Row} label="Media">${l.media.length} item(s)<//>
        <${Row} label="Format">${l.format}, modified ${when(l.modTime)}<//>
        <${Row} label="Stored">first ${when(data.createdAt)}, last changed ${when(data.updatedAt)}<//>
        <${Row} label="Newest feed carrying it">${
          lastFeed
            ? html`feed <a href=${`#/feeds?office=${encodeURIComponent(l.office)}`}><code>${lastFeed.feedId.slice(0, 8)}</code></a> of ${when(lastFeed.createdAt)} <${Badge} status=${lastFeed.outcome} />, which ${lastFeed.action === 'refused' ? 'refused it' : `${words(lastFeed.action)} it`}`
            : html`<span class="muted">none of the office's recent feeds</span>`
        }<//>
      </dl>
    </div>
    <h2>That feed's issues for this listing</h2>
    <${DataTable} label="Issues for this listing" columns=${issueColumns} rows=${issues} empty="None." />
    <h2>Status history</h2>
    <${DataTable} label="Status history" columns=${historyColumns} rows=${statusHistory} empty="No status change recorded in the feeds kept." />
    <h2>Description</h2>
    <div class="panel prose">${text(l.description) || html`<span class="muted">None.</span>`}</div>`;
}
