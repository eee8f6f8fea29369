// The audit log: who did what to what, filtered by action and actor, sorted and paged. Read by a
// person: ids shown by their names (a key's client, an endpoint's URL…) with the id below, details
// as "name: value" lines, and an operator's sign-ins in a row one after another folded into one.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { when, words } from '../lib/format.js';
import { html } from '../lib/html.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { useList } from '../ui/list-state.js';

const SIGN_IN = 'operator.sign_in';

/** Entries in order, with each run of one actor's sign-ins made one entry that counts them. */
export function foldSignIns(entries) {
  const rows = [];
  for (const e of entries) {
    const last = rows.at(-1);
    if (e.action === SIGN_IN && last?.action === SIGN_IN && last.actor === e.actor) {
      last.count += 1;
      last.first = e.at;
    } else rows.push({ ...e, count: 1, first: e.at });
  }
  return rows;
}

const value = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
const details = (d) =>
  d && Object.keys(d).length
    ? html`<dl class="details">${Object.entries(d).map(([k, v]) => html`<div><dt>${words(k)}</dt> <dd>${v === null ? '—' : value(v)}</dd></div>`)}</dl>`
    : '';
const named = (name, id) => (name ? html`${name}<div class="muted small">${id}</div>` : (id ?? ''));

export function Audit() {
  const [form, setForm] = useState({ action: '', actor: '' });
  const list = useList((p) => api('GET', `/v1/admin/audit?${query({ ...p, action: p.action.trim(), actor: p.actor.trim() })}`), {
    filters: form,
    sort: '-at',
    limit: 100,
  });
  const data = list.data;
  const columns = [
    {
      label: 'When',
      sort: '-at',
      cell: (e) => (e.count > 1 ? html`${when(e.at)}<div class="muted small">since ${when(e.first)}</div>` : when(e.at)),
    },
    { label: 'Actor', sort: 'actor', cell: (e) => named(e.actorName, e.actor) },
    { label: 'Action', sort: 'action', cell: (e) => html`<code>${e.action}</code>${e.count > 1 ? html` <span class="muted">× ${e.count}</span>` : null}` },
    { label: 'Target', cell: (e) => named(e.targetName, e.target) },
    // A folded run of sign-ins: only the newest one's details.
    { label: 'Details', cell: (e) => details(e.details) },
  ];
  return html`<form class="filters" onSubmit=${(e) => {
    e.preventDefault();
    return list.apply(form);
  }}>
      <label>Action <input name="action" placeholder="e.g. key.approve" value=${form.action} onInput=${(e) => setForm({ ...form, action: e.currentTarget.value })} /></label>
      <label>Actor <input name="actor" placeholder="operator name" value=${form.actor} onInput=${(e) => setForm({ ...form, actor: e.currentTarget.value })} /></label>
      <button type="submit">Filter</button>
    </form>
    <${DataTable} label="Audit log" busy=${list.loading} columns=${columns} rows=${data ? foldSignIns(data.entries) : undefined} sort=${list.sort} onSort=${list.sortBy} empty="Nothing recorded yet." />
    <${Pager} offset=${list.offset} shown=${data?.entries.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="entries" />`;
}
