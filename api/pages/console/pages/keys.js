// Feed keys: every key (paged, sorted), approving or revoking one, its id and a new secret to copy,
// its newest feed and last use, editing the offices it may write, and creating one.
import { useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { CopyButton } from '../ui/copy-button.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { Field, fieldErrors, invalidIf } from '../ui/fields.js';
import { act, flash } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';

const officeList = (value) =>
  value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);

function OfficesEditor({ k, onSaved, onCancel }) {
  const [error, setError] = useState(null);
  const save = async (event) => {
    event.preventDefault();
    const officeIds = officeList(new FormData(event.currentTarget).get('officeIds'));
    try {
      await api('PUT', `/v1/admin/keys/${k.id}`, { officeIds });
      flash('info', `Offices of ${k.clientName} saved: ${officeIds.join(', ')}.`);
      onSaved();
    } catch (err) {
      setError(fieldErrors(err.message, ['officeIds']));
    }
  };
  return html`<form class="inline" onSubmit=${save}>
    ${error?.form ? html`<div class="flash error" role="alert">${error.form}</div>` : null}
    <${Field} label="Offices of this key (comma-separated)" name="officeIds" error=${error?.officeIds}>
      <input name="officeIds" required value=${k.officeIds.join(', ')} ...${invalidIf(error?.officeIds, 'officeIds')} />
    <//>
    <button class="primary" type="submit">Save offices</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

function CreateKey({ onCreated }) {
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const [created, setCreated] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body = {
      clientName: String(data.get('clientName')),
      alertEmail: String(data.get('alertEmail')),
      officeIds: officeList(String(data.get('officeIds'))),
    };
    try {
      const key = await api('POST', '/v1/admin/keys', body);
      setErrors({});
      setCreated(key);
      flash('info', `Key created for ${body.clientName}.`);
      form.reset();
      onCreated();
    } catch (err) {
      setErrors(fieldErrors(err.message, ['clientName', 'alertEmail', 'officeIds']));
    }
  };
  return html`<div class="panel">
    ${errors.form ? html`<div class="flash error" role="alert">${errors.form}</div>` : null}
    <form class="inline" onSubmit=${submit} noValidate>
      <${Field} label="Client" name="clientName" error=${errors.clientName}><input name="clientName" required placeholder="Acme CRM" ...${invalidIf(errors.clientName, 'clientName')} /><//>
      <${Field} label="Alert email" name="alertEmail" error=${errors.alertEmail}><input name="alertEmail" type="email" required placeholder="feeds@acme.example" ...${invalidIf(errors.alertEmail, 'alertEmail')} /><//>
      <${Field} label="Offices (comma-separated)" name="officeIds" error=${errors.officeIds}><input name="officeIds" required placeholder="OFF1, OFF2" ...${invalidIf(errors.officeIds, 'officeIds')} /><//>
      <button class="primary" type="submit">Create active key</button>
    </form>
    ${
      created
        ? html`<div class="panel created"><strong>The new key, shown only now:</strong><div class="secret">${created.key}</div><${CopyButton} value=${created.key} label="Copy key" /></div>`
        : null
    }
  </div>`;
}

export function Keys() {
  const list = useList((p) => api('GET', `/v1/admin/keys?${query(p)}`), { filters: { q: '' }, sort: 'client', limit: 25 });
  const { data, reload } = list;
  const [editing, setEditing] = useState(null);
  const [findText, setFindText] = useState('');
  const change = async (k, action) => {
    if (action === 'revoke' && !(await confirmFirst(`Revoke the key of ${k.clientName}? Its feeds are refused from now on.`, { action: 'Revoke' }))) return;
    if (await act(() => api('POST', `/v1/admin/keys/${k.id}/${action}`), `Key of ${k.clientName} ${action === 'approve' ? 'approved' : 'revoked'}.`)) reload();
  };
  const columns = [
    { label: 'Client', sort: 'client', cell: (k) => k.clientName },
    { label: 'Key id', cell: (k) => html`<code class="key-id">${k.id.slice(0, 8)}</code> <${CopyButton} value=${k.id} label="Copy id" />` },
    { label: 'Alert email', cell: (k) => k.alertEmail },
    { label: 'Offices', cell: (k) => k.officeIds.join(', ') },
    { label: 'Status', sort: 'status', cell: (k) => html`<${Badge} status=${k.status} />` },
    { label: 'Created', sort: '-created', cell: (k) => when(k.createdAt) },
    {
      label: 'Newest feed',
      sort: '-lastFeed',
      cell: (k) =>
        k.lastFeed
          ? html`<a href=${`#/feeds?key=${k.id}`}>${when(k.lastFeed.createdAt)} <${Badge} status=${k.lastFeed.outcome} /></a>`
          : html`<span class="muted">none yet</span>`,
    },
    { label: 'Last used', sort: '-lastUsed', cell: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : html`<span class="muted">never</span>`) },
    {
      label: '',
      className: 'actions',
      cell: (k) => html`
        ${k.status === 'suspended' ? html`<button class="primary" onClick=${() => change(k, 'approve')}>Approve</button>` : null}
        ${k.status !== 'revoked' ? html`<button aria-expanded=${String(editing === k.id)} onClick=${() => setEditing(editing === k.id ? null : k.id)}>Edit offices</button>` : null}
        ${k.status !== 'revoked' ? html`<button class="danger" onClick=${() => change(k, 'revoke')}>Revoke</button>` : null}`,
    },
  ];
  return html`
    <form class="filters" onSubmit=${(e) => {
      e.preventDefault();
      return list.apply({ q: findText.trim() });
    }}>
      <${Field} label="Find a key" name="q"><input name="q" placeholder="client, email or office" value=${findText} onInput=${(e) => setFindText(e.currentTarget.value)} /><//>
      <button type="submit">Find</button>
    </form>
    <${DataTable}
      label="Feed keys" busy=${list.loading}
      columns=${columns}
      rows=${data?.keys}
      rowAttrs=${(k) => ({ 'data-key': k.id })}
      below=${(k) =>
        editing === k.id
          ? html`<tr class="below"><td colspan=${columns.length}><${OfficesEditor} k=${k} onCancel=${() => setEditing(null)} onSaved=${() => {
              setEditing(null);
              return reload();
            }} /></td></tr>`
          : null}
      sort=${list.sort}
      onSort=${list.sortBy}
      empty=${list.filters.q ? 'No key matches.' : 'No feed keys yet.'}
    />
    <${Pager} offset=${list.offset} shown=${data?.keys.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="key(s)" />
    <h2>Create a key</h2>
    <${CreateKey} onCreated=${reload} />`;
}
