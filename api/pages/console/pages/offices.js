// Offices: every office the service knows (listings, lead email, drop settings, keys, newest feed),
// sorted, paged and found by id; one office's lead email and SFTP drop settings, filled with what
// is stored so saving changes only what the operator changed; an unknown office is said to be
// unknown, with a form only when the operator asks to set it up.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { when, words } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { Field, fieldErrors, invalidIf } from '../ui/fields.js';
import { act, flash } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';

/** How an office's leads are delivered (the admin API's leadDelivery). */
const LEAD_DELIVERY = [
  ['both', 'Email and CRM'],
  ['email', 'Email only'],
  ['crm', 'CRM, email if not acknowledged in time'],
];
const LEAD_DELIVERY_SHORT = { both: 'email and CRM', email: 'email', crm: 'CRM (email as fallback)' };

const DROP_FIELDS = [
  ['currency', 'Currency (ISO-4217)', 'AUD'],
  ['country', 'Country (ISO-3166)', 'AU'],
  ['locale', 'Locale', 'en-AU'],
  ['alertEmail', 'Alert email', 'feeds@agency.example'],
];
const orNull = (value) => String(value ?? '').trim() || null;

function OfficeList({ onOpen }) {
  const [find, setFind] = useState('');
  const list = useList((p) => api('GET', `/v1/admin/offices?${query(p)}`), { filters: { q: '' }, sort: 'office', limit: 25 });
  const data = list.data;
  const columns = [
    { label: 'Office', sort: 'office', cell: (o) => html`<button type="button" class="link" onClick=${() => onOpen(o.office)}>${o.office}</button>` },
    { label: 'Public / listings', sort: '-listings', num: true, cell: (o) => `${o.listings.public} / ${o.listings.total}` },
    { label: 'Lead email', cell: (o) => o.leadEmail ?? html`<span class="muted">none</span>` },
    { label: 'Lead delivery', cell: (o) => LEAD_DELIVERY_SHORT[o.leadDelivery] ?? o.leadDelivery },
    { label: 'SFTP drops', cell: (o) => (o.dropSettings ? 'set' : html`<span class="muted">defaults</span>`) },
    {
      label: 'Feed keys',
      cell: (o) => (o.keys.length ? o.keys.map((k) => `${k.clientName} (${k.status})`).join(', ') : html`<span class="muted">none</span>`),
    },
    {
      label: 'Newest feed',
      sort: '-lastFeed',
      cell: (o) => (o.lastFeed ? html`${when(o.lastFeed.createdAt)} <${Badge} status=${o.lastFeed.outcome} />` : html`<span class="muted">never</span>`),
    },
  ];
  return html`<form class="filters" onSubmit=${(e) => {
    e.preventDefault();
    return list.apply({ q: find.trim() });
  }}>
      <label>Find an office <input name="officeFilter" placeholder="part of an office id" value=${find} onInput=${(e) => setFind(e.currentTarget.value)} /></label>
      <button type="submit">Find</button>
    </form>
    <${DataTable}
      label="Offices" busy=${list.loading}
      columns=${columns}
      rows=${data?.offices}
      rowAttrs=${(o) => ({ 'data-office': o.office })}
      sort=${list.sort}
      onSort=${list.sortBy}
      empty=${list.filters.q ? 'No office matches.' : 'No offices yet.'}
    />
    <${Pager} offset=${list.offset} shown=${data?.offices.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="office(s)" />`;
}

/** Saves what changed of an office's lead settings; clearing its lead email is confirmed first. */
function saveLeadSettings({ id, stored, setStored, setErrors }) {
  return async (event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const next = orNull(data.get('leadEmail'));
    const delivery = String(data.get('leadDelivery') ?? stored.leadDelivery);
    const body = {
      ...(next !== (stored.leadEmail ?? null) ? { leadEmail: next } : {}),
      ...(delivery !== stored.leadDelivery ? { leadDelivery: delivery } : {}),
    };
    if (Object.keys(body).length === 0) return flash('info', `Nothing to save: the lead settings of ${id} are unchanged.`);
    if (
      'leadEmail' in body &&
      !next &&
      !(await confirmFirst(`Clear the lead email of ${id} (${stored.leadEmail})? Enquiries with no agent email will have nowhere to go.`, {
        action: 'Clear and save',
      }))
    )
      return;
    try {
      const saved = await api('PUT', `/v1/admin/offices/${encodeURIComponent(id)}`, body);
      setErrors({});
      setStored({ ...stored, leadEmail: saved.leadEmail, leadDelivery: saved.leadDelivery });
      flash('info', `Lead settings of ${id} saved.`);
    } catch (err) {
      flash('error', err.message);
      setErrors(fieldErrors(err.message, ['leadEmail', 'leadDelivery']));
    }
  };
}

/** Saves what changed of an office's SFTP drop settings. */
function saveDropSettings({ id, stored, setStored, setErrors }) {
  return async (event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body = Object.fromEntries(DROP_FIELDS.map(([name]) => [name, orNull(data.get(name))]));
    const drop = stored.dropSettings ?? {};
    if (Object.entries(body).every(([name, value]) => value === (drop[name] ?? null)))
      return flash('info', `Nothing to save: the SFTP drop settings of ${id} are unchanged.`);
    try {
      const saved = await api('PUT', `/v1/admin/offices/${encodeURIComponent(id)}/drop-settings`, body);
      setErrors({});
      setStored({ ...stored, dropSettings: saved });
      flash('info', `SFTP drop settings of ${id} saved.`);
    } catch (err) {
      flash('error', err.message);
      setErrors(
        fieldErrors(
          err.message,
          DROP_FIELDS.map(([name]) => name),
        ),
      );
    }
  };
}

function OfficeEditors({ id, current }) {
  const [stored, setStored] = useState(current);
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const state = { id, stored, setStored, setErrors };
  const saveLeads = saveLeadSettings(state);
  const saveDrop = saveDropSettings(state);
  const statuses = Object.entries(stored.listingsByStatus ?? {});
  return html`<h2>Office ${id}</h2>
    <div class="panel">
      <p>${statuses.length ? `Listings: ${statuses.map(([s, n]) => `${n} ${words(s)}`).join(', ')}.` : 'No listings stored.'} ${statuses.length ? html`<a href=${`#/listings?office=${encodeURIComponent(id)}`}>See them</a>` : null}</p>
      <p>${stored.keys?.length ? `Feed keys: ${stored.keys.map((k) => `${k.clientName} (${k.status})`).join(', ')}.` : 'No feed key covers this office.'}</p>
    </div>
    <h2>Leads for ${id}</h2>
    <div class="panel">
      <p class="muted">How enquiries reach the office, and where mail goes when no agent of the listing has an email.</p>
      <form class="inline" onSubmit=${saveLeads} noValidate>
        <${Field} label="Lead delivery" name="leadDelivery" error=${errors.leadDelivery}>
          <select name="leadDelivery" value=${stored.leadDelivery ?? 'both'}>
            ${LEAD_DELIVERY.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        <//>
        <${Field} label="Office lead email" name="leadEmail" error=${errors.leadEmail}>
          <input name="leadEmail" type="email" placeholder="enquiries@agency.example" value=${stored.leadEmail ?? ''} ...${invalidIf(errors.leadEmail, 'leadEmail')} />
        <//>
        <button class="primary" type="submit">Save lead settings</button>
      </form>
    </div>
    <h2>SFTP drops for ${id}</h2>
    <div class="panel">
      <p class="muted">Context for files dropped in ${id}/inbox/; empty fields use the service defaults.</p>
      <form class="inline" onSubmit=${saveDrop} noValidate>
        ${DROP_FIELDS.map(
          ([name, label, placeholder]) => html`<${Field} label=${label} name=${name} error=${errors[name]}>
            <input name=${name} placeholder=${placeholder} value=${stored.dropSettings?.[name] ?? ''} ...${invalidIf(errors[name], name)} />
          <//>`,
        )}
        <button class="primary" type="submit">Save drop settings</button>
      </form>
    </div>`;
}

export function Offices() {
  const [id, setId] = useState('');
  const [opened, setOpened] = useState(null);
  const open = async (office) => {
    const wanted = office.trim();
    setId(wanted);
    flash(null);
    setOpened(null);
    try {
      setOpened({ id: wanted, current: await api('GET', `/v1/admin/offices/${encodeURIComponent(wanted)}`) });
    } catch (err) {
      if (err.status !== 404) return flash('error', err.message);
      setOpened({ id: wanted, unknown: true });
    }
  };
  const setUp = () => setOpened({ id: opened.id, current: { leadEmail: null, leadDelivery: 'both', dropSettings: null, listingsByStatus: {}, keys: [] } });
  return html`<${OfficeList} onOpen=${open} />
    <h2>Open an office</h2>
    <form class="filters" onSubmit=${(e) => {
      e.preventDefault();
      return act(() => open(id));
    }}>
      <label>Office id <input name="office" required placeholder="OFF1" value=${id} onInput=${(e) => setId(e.currentTarget.value)} /></label>
      <button type="submit">Open</button>
    </form>
    ${
      opened?.unknown
        ? html`<div class="panel"><p>No listing, feed key or setting names office ${opened.id}. Check the id, or set it up as a new office.</p><button onClick=${setUp}>Set up ${opened.id}</button></div>`
        : opened
          ? html`<${OfficeEditors} key=${opened.id} id=${opened.id} current=${opened.current} />`
          : null
    }`;
}
