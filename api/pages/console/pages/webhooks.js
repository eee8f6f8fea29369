// Webhooks: every key's endpoints, registering one for a key (its secret shown once), a test
// event, turning a disabled endpoint on again, deleting one, and each endpoint's delivery log.
import { useState } from 'preact/hooks';
import { allKeys, api, query } from '../lib/api.js';
import { when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { CopyButton } from '../ui/copy-button.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { Field, fieldErrors, invalidIf } from '../ui/fields.js';
import { act, flash } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';
import { useLoad } from '../ui/use-load.js';

const EVENTS = ['feed.completed', 'feed.failed', 'feed.quarantined', 'listing.archived', 'listing.status_changed'];
const LOG_PAGE = 50;

function Deliveries({ endpoint }) {
  const list = useList((p) => api('GET', `/v1/admin/webhooks/${endpoint.id}/deliveries?${query(p)}`), { limit: LOG_PAGE });
  const data = list.data;
  const columns = [
    { label: 'Created', cell: (d) => when(d.createdAt) },
    { label: 'Event', cell: (d) => html`<code>${d.type}</code>` },
    { label: 'Status', cell: (d) => html`<${Badge} status=${d.status} />` },
    { label: 'Attempts', cell: (d) => String(d.attempts) },
    { label: 'Last answer', cell: (d) => (d.lastStatus === null ? '—' : String(d.lastStatus)) },
    { label: 'Latency', cell: (d) => (d.lastLatencyMs === null ? '—' : `${d.lastLatencyMs} ms`) },
    { label: 'Error', cell: (d) => d.lastError ?? '' },
    { label: 'Next attempt', cell: (d) => (d.nextAttemptAt ? when(d.nextAttemptAt) : '—') },
  ];
  return html`<div id="deliveries">
    <h2>Deliveries to ${endpoint.url}</h2>
    <${DataTable} label="Deliveries" busy=${list.loading} columns=${columns} rows=${data?.deliveries} rowAttrs=${(d) => ({ 'data-delivery': d.id })} empty="Nothing sent to this endpoint yet." />
    <${Pager} offset=${list.offset} shown=${data?.deliveries.length ?? 0} total=${data?.total} limit=${LOG_PAGE} onPage=${list.page} noun="deliveries" />
  </div>`;
}

function Register({ keys, onRegistered }) {
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const [secret, setSecret] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const d = new FormData(form);
    const body = {
      keyId: d.get('keyId'),
      url: String(d.get('url')).trim(),
      events: d.getAll('events'),
      description: String(d.get('description')).trim() || null,
    };
    try {
      const result = await api('POST', '/v1/admin/webhooks', body);
      setErrors({});
      setSecret(result.secret);
      flash('info', 'Endpoint registered.');
      form.reset();
      onRegistered();
    } catch (err) {
      flash('error', err.message);
      setErrors(fieldErrors(err.message, ['keyId', 'url', 'events', 'description']));
    }
  };
  return html`<div class="panel">
    <form class="inline" onSubmit=${submit}>
      <label>Feed key <select name="keyId" required>${keys.filter((k) => k.status !== 'revoked').map((k) => html`<option value=${k.id}>${k.clientName} (${k.officeIds.join(', ')})</option>`)}</select></label>
      <${Field} label="URL" name="url" error=${errors.url}><input name="url" type="url" required placeholder="https://crm.example.com/hooks/listings" ...${invalidIf(errors.url, 'url')} /><//>
      <${Field} label="Note" name="description" error=${errors.description}><input name="description" placeholder="optional note" /><//>
      <fieldset class="events"><legend>Events</legend>${EVENTS.map((e) => html`<label class="check"><input type="checkbox" name="events" value=${e} checked />${e}</label>`)}</fieldset>
      ${errors.events ? html`<span class="field-error">${errors.events}</span>` : null}
      <button class="primary" type="submit">Register endpoint</button>
    </form>
    ${secret ? html`<div class="panel created"><strong>Its signing secret, shown only now: hand it to the integrator.</strong><div class="secret">${secret}</div><${CopyButton} value=${secret} label="Copy secret" /></div>` : null}
  </div>`;
}

export function Webhooks() {
  const [log, setLog] = useState(null);
  const { data, reload } = useLoad(() => Promise.all([api('GET', '/v1/admin/webhooks'), allKeys()]), []);
  const [hooks, keyPage] = data ?? [null, { keys: [] }];
  const clientOf = new Map(keyPage.keys.map((k) => [k.id, k.clientName]));
  const run = async (call, done) => (await act(call, done)) !== undefined && reload();
  const remove = async (w) => {
    if (!(await confirmFirst(`Delete the endpoint ${w.url}? Nothing more is sent to it.`, { action: 'Delete' }))) return;
    if ((await act(() => api('DELETE', `/v1/admin/webhooks/${w.id}`), 'Endpoint deleted.')) !== undefined) {
      setLog(null);
      reload();
    }
  };
  const columns = [
    { label: 'Key', cell: (w) => clientOf.get(w.keyId) ?? w.keyId },
    { label: 'URL', cell: (w) => html`<code>${w.url}</code>${w.description ? html`<div class="muted">${w.description}</div>` : null}` },
    { label: 'Events', cell: (w) => w.events.join(', ') },
    {
      label: 'Status',
      cell: (w) =>
        html`<${Badge} status=${w.status} />${w.failingSince ? html`<div class="muted">failing since ${when(w.failingSince)}</div>` : null}${w.disabledReason ? html`<div class="muted">${w.disabledReason}</div>` : null}`,
    },
    { label: 'Created', cell: (w) => when(w.createdAt) },
    {
      label: '',
      className: 'actions',
      cell: (w) => html`<button type="button" onClick=${() => setLog(w)}>Deliveries</button>
        ${
          w.status === 'active'
            ? html`<button type="button" onClick=${() => run(() => api('POST', `/v1/admin/webhooks/${w.id}/test`), 'Test event queued; see its delivery below.')}>Send test</button>`
            : html`<button type="button" onClick=${() => run(() => api('PATCH', `/v1/admin/webhooks/${w.id}`, { enabled: true }), 'Endpoint enabled.')}>Enable</button>`
        }
        <button type="button" class="danger" onClick=${() => remove(w)}>Delete</button>`,
    },
  ];
  return html`<p class="muted">Endpoints that feed keys registered, or that you register for them. Events are signed (Standard Webhooks) and retried for about 27 hours; an endpoint failing for 24 hours is disabled and its key told.</p>
    <${DataTable} label="Webhook endpoints" columns=${columns} rows=${hooks?.endpoints} rowAttrs=${(w) => ({ 'data-endpoint': w.id })} empty="No webhook endpoints yet." />
    ${log ? html`<${Deliveries} key=${log.id} endpoint=${log} />` : null}
    <h2>Register an endpoint for a key</h2>
    <${Register} keys=${keyPage.keys} onRegistered=${reload} />`;
}
