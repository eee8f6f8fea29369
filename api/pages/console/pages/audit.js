// The audit log: who did what to what, filtered by action and actor, sorted and paged.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { useList } from '../ui/list-state.js';

export function Audit() {
  const [form, setForm] = useState({ action: '', actor: '' });
  const list = useList((p) => api('GET', `/v1/admin/audit?${query({ ...p, action: p.action.trim(), actor: p.actor.trim() })}`), { filters: form, sort: '-at', limit: 100 });
  const data = list.data;
  const columns = [
    { label: 'When', sort: '-at', cell: (e) => when(e.at) },
    { label: 'Actor', sort: 'actor', cell: (e) => e.actor },
    { label: 'Action', sort: 'action', cell: (e) => html`<code>${e.action}</code>` },
    { label: 'Target', cell: (e) => e.target ?? '' },
    { label: 'Details', cell: (e) => (e.details ? html`<code>${JSON.stringify(e.details)}</code>` : '') },
  ];
  return html`<form class="filters" onSubmit=${(e) => (e.preventDefault(), list.apply(form))}>
      <label>Action <input name="action" placeholder="e.g. key.approve" value=${form.action} onInput=${(e) => setForm({ ...form, action: e.currentTarget.value })} /></label>
      <label>Actor <input name="actor" placeholder="operator name" value=${form.actor} onInput=${(e) => setForm({ ...form, actor: e.currentTarget.value })} /></label>
      <button type="submit">Filter</button>
    </form>
    <${DataTable} label="Audit log" busy=${list.loading} columns=${columns} rows=${data?.entries} sort=${list.sort} onSort=${list.sortBy} empty="Nothing recorded yet." />
    <${Pager} offset=${list.offset} shown=${data?.entries.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="entries" />`;
}
