// Leads: every enquiry (sender, listing, where it went, what became of it), sorted and paged;
// reading one, blocking its sender, sending a failed or undeliverable one again (routed afresh, so
// a lead that had nowhere to go reaches the office once its lead email is set); enquiries refused
// before they became leads, as counts; the sender blocklist.
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
import { useLoad } from '../ui/use-load.js';

const STATUSES = ['', 'pending', 'sending', 'delivered', 'failed', 'dead_letter', 'awaiting_crm', 'crm_acknowledged', 'purged'];
const REFUSALS = { unknown_listing: 'unknown listing', blocked: 'blocked sender', rate_limited: 'rate-limited', bot_check: 'failed the bot check' };

function Blocklist({ version }) {
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const { data, reload } = useLoad(() => api('GET', '/v1/admin/blocklist'), [version]);
  const remove = async (e) => {
    if (!(await confirmFirst(`Unblock ${e.value}?`, { action: 'Unblock', danger: false }))) return;
    if (await act(() => api('DELETE', '/v1/admin/blocklist', { id: String(e.id) }), `${e.value} unblocked.`)) reload();
  };
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const d = new FormData(form);
    const body = {
      kind: d.get('kind'),
      value: String(d.get('value')).trim(),
      ...(String(d.get('reason')).trim() ? { reason: String(d.get('reason')).trim() } : {}),
      ...(d.get('force') ? { force: true } : {}),
    };
    try {
      await api('POST', '/v1/admin/blocklist', body);
      setErrors({});
      flash('info', `${body.value} blocked.`);
      form.reset();
      reload();
    } catch (err) {
      flash('error', err.message);
      setErrors(fieldErrors(err.message, ['value', 'reason', 'kind']));
    }
  };
  const columns = [
    { label: 'Kind', cell: (e) => e.kind },
    { label: 'Value', cell: (e) => e.value },
    { label: 'Reason', cell: (e) => e.reason ?? '' },
    { label: 'Added', cell: (e) => when(e.createdAt) },
    { label: '', className: 'actions', cell: (e) => html`<button class="danger" onClick=${() => remove(e)}>Remove</button>` },
  ];
  return html`<h2>Sender blocklist</h2>
    <div class="panel">
      <form class="inline" onSubmit=${submit}>
        <label>Kind <select name="kind"><option value="email">email</option><option value="domain">domain</option></select></label>
        <${Field} label="Value" name="value" error=${errors.value}><input name="value" required placeholder="spam@example.com or example.com" ...${invalidIf(errors.value, 'value')} /><//>
        <${Field} label="Reason" name="reason" error=${errors.reason}><input name="reason" placeholder="why (optional)" /><//>
        <label class="check"><input type="checkbox" name="force" /> Common provider</label>
        <button class="primary" type="submit">Block</button>
      </form>
    </div>
    <${DataTable} label="Blocked senders" columns=${columns} rows=${data?.entries} rowAttrs=${(e) => ({ 'data-block': e.value })} empty="Nobody is blocked." />`;
}

function Refusals() {
  const { data } = useLoad(() => api('GET', '/v1/admin/leads/refusals?days=7'), []);
  if (!data) return null;
  const entries = Object.entries(data.byReason);
  return html`<div class="panel" id="refusals">
    <strong>Enquiries refused in the last ${data.days} days: ${data.total}</strong>
    ${entries.length ? html`<ul class="inline-list">${entries.map(([reason, n]) => html`<li>${REFUSALS[reason] ?? words(reason)}: ${n}</li>`)}</ul>` : html`<span class="muted"> none.</span>`}
  </div>`;
}

/** The CRM path of a lead: the office's choice, the acknowledgement or the fallback, the lead.created events. */
function CrmPath({ lead }) {
  const d = lead.delivery;
  if (d.mode === 'email') return html`<span class="muted">email only</span>`;
  const events = Object.entries(d.webhooks).filter(([, n]) => n > 0);
  const state = d.acknowledgedAt
    ? `acknowledged ${when(d.acknowledgedAt)}`
    : d.fellBackAt
      ? `not acknowledged: mailed ${when(d.fellBackAt)}`
      : lead.status === 'awaiting_crm'
        ? `awaiting acknowledgement until ${when(d.fallbackAt)}`
        : 'not acknowledged';
  return html`${state}<div class="muted">${events.length ? `events: ${events.map(([s, n]) => `${n} ${words(s)}`).join(', ')}` : 'no endpoint told'}${d.mode === 'both' ? ' · mailed too' : ''}</div>`;
}

export function Leads() {
  const [form, setForm] = useState({ status: '', sender: '' });
  const list = useList((p) => api('GET', `/v1/admin/leads?${query({ ...p, sender: p.sender.trim() })}`), { filters: form, sort: '-received' });
  const { data, reload } = list;
  const [open, setOpen] = useState(null);
  const [blockVersion, setBlockVersion] = useState(0);
  const resend = async (l) => {
    if (await act(() => api('POST', `/v1/admin/leads/${l.id}/retry`), 'Lead queued for delivery again.')) reload();
  };
  const blockSender = async (l) => {
    if (!(await confirmFirst(`Block ${l.contact.email}? Their enquiries are refused from now on.`, { action: 'Block' }))) return;
    if (
      await act(() => api('POST', '/v1/admin/blocklist', { kind: 'email', value: l.contact.email, reason: `from lead ${l.id}` }), `${l.contact.email} blocked.`)
    )
      setBlockVersion((v) => v + 1);
  };
  const columns = [
    { label: 'Received', sort: '-received', cell: (l) => when(l.createdAt) },
    { label: 'Status', sort: 'status', cell: (l) => html`<${Badge} status=${l.status} />` },
    {
      label: 'Sender',
      cell: (l) =>
        l.contact?.email
          ? html`${l.contact.name ?? ''}<div class=${l.contact.name ? 'muted' : undefined}>${l.contact.email}</div>`
          : html`<span class="muted">erased</span>`,
    },
    {
      label: 'Listing',
      cell: (l) =>
        html`<a href=${`#/listings/${encodeURIComponent(l.listing.office)}/${encodeURIComponent(l.listing.uniqueId)}`}><code>${l.listing.listingKey}</code></a>`,
    },
    { label: 'Recipient', cell: (l) => html`${l.recipient ?? '—'}<div class="muted">${l.recipientSource ?? ''}</div>` },
    { label: 'CRM', cell: (l) => html`<${CrmPath} lead=${l} />` },
    { label: 'Attempts', sort: '-attempts', num: true, cell: (l) => l.attempts },
    {
      label: '',
      className: 'actions',
      cell: (l) => html`<button aria-expanded=${String(open === l.id)} onClick=${() => setOpen(open === l.id ? null : l.id)}>View</button>
        ${l.status === 'failed' ? html`<button class="primary" onClick=${() => resend(l)}>Retry</button>` : null}
        ${l.status === 'dead_letter' ? html`<button class="primary" onClick=${() => resend(l)}>Route again and send</button>` : null}
        ${l.contact?.email ? html`<button class="danger" onClick=${() => blockSender(l)}>Block sender</button>` : null}`,
    },
  ];
  const detail = (l) =>
    open === l.id
      ? html`<tr class="below"><td colspan=${columns.length}><pre>${[
          `From: ${l.contact?.name ?? ''} <${l.contact?.email ?? ''}>${l.contact?.phone ? `  ${l.contact.phone}` : ''}`,
          '',
          l.contact?.message ?? '(erased)',
          '',
          l.lastError ? `Last error: ${l.lastError}` : '',
        ].join('\n')}</pre></td></tr>`
      : null;
  return html`<${Refusals} />
    <form class="filters" onSubmit=${(e) => {
      e.preventDefault();
      return list.apply(form);
    }}>
      <label>Status <select name="status" value=${form.status} onChange=${(e) => setForm({ ...form, status: e.currentTarget.value })}>${STATUSES.map((s) => html`<option value=${s}>${s ? words(s) : 'any status'}</option>`)}</select></label>
      <label>Sender <input name="sender" placeholder="part of an email" value=${form.sender} onInput=${(e) => setForm({ ...form, sender: e.currentTarget.value })} /></label>
      <button type="submit">Filter</button>
    </form>
    <${DataTable} label="Leads" busy=${list.loading} columns=${columns} rows=${data?.leads} rowAttrs=${(l) => ({ 'data-lead': l.id })} below=${detail} sort=${list.sort} onSort=${list.sortBy} empty="No leads match." />
    <${Pager} offset=${list.offset} shown=${data?.leads.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="lead(s)" />
    <${Blocklist} version=${blockVersion} />`;
}
