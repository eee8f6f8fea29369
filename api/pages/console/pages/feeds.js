// Feeds: what became of each (the outcome, never a green badge for a broken feed), filtered by
// outcome (or "needs a look": a problem outcome, less trips already resolved), time, status, key,
// office and feed id, sorted and paged; each feed's issues as a table; retrying a failed feed from
// its stored body.
import { useState } from 'preact/hooks';
import { allKeys, api, query } from '../lib/api.js';
import { when, words } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { DataTable, Pager } from '../ui/data-table.js';
import { act } from '../ui/flash.js';
import { useList } from '../ui/list-state.js';
import { useLoad } from '../ui/use-load.js';
import { FeedIssues } from './feed-issues.js';

/** The outcome choice that asks the service for the feeds still needing a look (needsLook=true). */
const NEEDS_LOOK = 'needs-look';
const OUTCOMES = [
  ['', 'any outcome'],
  [NEEDS_LOOK, 'needs a look'],
  ['ok', 'ok'],
  ['with_invalid', 'with invalid'],
  ['not_well_formed', 'not well formed'],
  ['tripped', 'tripped'],
  ['failed', 'failed'],
  ['rejected', 'rejected'],
  ['queued,running', 'not finished'],
];
const PERIODS = [
  ['', 'any time'],
  ['24h', 'last 24 hours'],
  ['7d', 'last 7 days'],
];
const since = (period) => (period ? new Date(Date.now() - (period === '24h' ? 1 : 7) * 86_400_000).toISOString() : '');

/** What a feed read and applied, or how far it has got. */
const counts = (f) =>
  f.counts
    ? `${f.counts.parsed} parsed · ${f.counts.valid} valid · ${f.counts.invalid} invalid`
    : f.progress
      ? `so far ${f.progress.parsed} read · ${f.progress.applied} applied`
      : '—';

/** What the feed changed, in words. */
const summary = (f) =>
  f.summary
    ? Object.entries(f.summary)
        .filter(([, n]) => n)
        .map(([k, n]) => `${words(k)} ${n}`)
        .join(', ') || 'nothing changed'
    : '';

/** The table's columns; `open` holds the feeds whose issues are shown. */
function feedColumns({ open, toggle, retry }) {
  return [
    {
      label: 'Received',
      sort: '-received',
      cell: (f) => html`${when(f.createdAt)}<div>${f.clientName ?? 'SFTP drop'}</div><div class="muted">${f.source} · ${f.format} · ${f.mode}</div>`,
    },
    {
      label: 'Outcome',
      sort: 'outcome',
      // A trip already applied or reviewed stays "tripped" (what happened) but needs no more look.
      cell: (f) =>
        html`<${Badge} status=${f.outcome ?? f.status} />${f.outcome === 'tripped' && !f.needsLook ? html`<div class="muted">resolved</div>` : null}`,
    },
    { label: 'Offices', cell: (f) => f.officeScope.join(', ') },
    {
      label: 'Counts',
      sort: '-invalid',
      cell: (f) => html`${counts(f)}<div class="muted">${summary(f)}</div>
        ${
          f.reconcile
            ? html`<div>reconcile <${Badge} status=${f.reconcile.status} />${f.reconcile.archived ? ` ${f.reconcile.archived} archived` : ''}${f.reconcile.status === 'tripped' ? html` · <a href="#/quarantine">review</a>` : null}</div>`
            : null
        }`,
    },
    {
      label: 'Error',
      // A feed that could not be read says why where its error goes (its one issue carries the reason).
      cell: (f) => html`${f.error ?? (f.outcome === 'not_well_formed' ? f.issues.find((i) => i.code === 'feed_not_well_formed')?.message : '') ?? ''}
        ${f.errorDetail ? html`<pre>${f.errorDetail.split('\n')[0]}</pre>` : null}`,
    },
    { label: 'Attempts', sort: '-attempts', num: true, cell: (f) => f.attempts },
    {
      label: '',
      className: 'actions',
      cell: (f) => html`<button aria-expanded=${String(open.has(f.feedId))} onClick=${() => toggle(f.feedId)}>Issues (${f.issues.length})</button>
        ${f.status === 'failed' ? html`<button class="primary" onClick=${() => retry(f)}>Retry</button>` : null}`,
    },
  ];
}

/** The filters; a change applies when the form is submitted. */
function FeedFilters({ form, set, keys, onApply }) {
  return html`
    <form class="filters" onSubmit=${(e) => {
      e.preventDefault();
      return onApply();
    }}>
      <label>Outcome <select name="outcome" value=${form.outcome} onChange=${set('outcome')}>${OUTCOMES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></label>
      <label>Received <select name="period" value=${form.period} onChange=${set('period')}>${PERIODS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></label>
      <label>Status <select name="status" value=${form.status} onChange=${set('status')}>${['', 'queued', 'running', 'done', 'failed', 'rejected'].map((s) => html`<option value=${s}>${s || 'any status'}</option>`)}</select></label>
      <label>Key <select name="keyId" value=${form.keyId} onChange=${set('keyId')}>
        <option value="">any key</option>
        ${(keys?.keys ?? []).map((k) => html`<option value=${k.id}>${k.clientName} (${k.officeIds.join(', ')})${k.status === 'active' ? '' : ` · ${k.status}`}</option>`)}
      </select></label>
      <label>Office <input name="office" placeholder="office" value=${form.office} onInput=${set('office')} /></label>
      <label>Feed id <input name="feedId" placeholder="feed id" size="38" value=${form.feedId} onInput=${set('feedId')} /></label>
      <button type="submit">Filter</button>
    </form>`;
}

export function Feeds({ params }) {
  const problems = ['24h', '7d'].includes(params.get('problems')) ? params.get('problems') : '';
  const initial = {
    outcome: problems ? NEEDS_LOOK : '',
    period: problems,
    status: '',
    keyId: params.get('key') ?? '',
    office: params.get('office') ?? '',
    feedId: params.get('feed') ?? '',
  };
  const [form, setForm] = useState(initial);
  const list = useList(
    ({ period, outcome, ...p }) =>
      api(
        'GET',
        `/v1/admin/feeds?${query({
          ...p,
          ...(outcome === NEEDS_LOOK ? { needsLook: 'true' } : { outcome }),
          office: p.office.trim(),
          feedId: p.feedId.trim(),
          since: since(period),
        })}`,
      ),
    { filters: initial, sort: '-received' },
  );
  const { data, reload } = list;
  const [open, setOpen] = useState(() => new Set());
  const { data: keys } = useLoad(allKeys, []);
  const set = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  const toggle = (id) =>
    setOpen((s) => {
      if (s.has(id)) {
        s.delete(id);
        return new Set(s);
      }
      return new Set(s.add(id));
    });
  const retry = async (f) => {
    if (!(await confirmFirst('Run this feed again from its stored body?', { action: 'Run again', danger: false }))) return;
    if (await act(() => api('POST', `/v1/admin/feeds/${f.feedId}/retry`), 'Feed queued again.')) reload();
  };
  const columns = feedColumns({ open, toggle, retry });
  return html`
    <${FeedFilters} form=${form} set=${set} keys=${keys} onApply=${() => list.apply(form)} />
    <${DataTable}
      label="Feeds" busy=${list.loading}
      columns=${columns}
      rows=${data?.feeds}
      rowAttrs=${(f) => ({ 'data-feed': f.feedId })}
      below=${(f) => (open.has(f.feedId) ? html`<tr class="issues-row below"><td colspan=${columns.length}><${FeedIssues} feedId=${f.feedId} /></td></tr>` : null)}
      sort=${list.sort}
      onSort=${list.sortBy}
      empty="No feeds match."
    />
    <${Pager} offset=${list.offset} shown=${data?.feeds.length ?? 0} total=${data?.total} limit=${list.limit} onPage=${list.page} noun="feed(s)" />`;
}
