// The operator console: one page, a view per admin task, talking to the admin API with the
// operator token (kept in sessionStorage, sent as a Bearer header; never in a URL or a log).

import { webhooks } from './webhooks.js';

const TOKEN_KEY = 'operatorToken';
const app = document.getElementById('app');
let refreshTimer = null;

// ---------- small helpers ----------

/** An element with attributes (on* become listeners) and children (strings become text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
  return node;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
const text = (map) => (map && typeof map === 'object' ? Object.values(map)[0] : (map ?? ''));
const addressLine = (a) => (a ? [a.lotNumber ? `Lot ${a.lotNumber}` : null, [a.subNumber, a.streetNumber].filter(Boolean).join('/'), a.street, a.locality, a.region, a.postcode].filter(Boolean).join(' ') : '');
const STATUS_TONE = { active: 'good', done: 'good', ok: 'good', with_invalid: 'warn', not_well_formed: 'bad', delivered: 'good', under_offer: 'good', suspended: 'warn', queued: 'warn', running: 'warn', pending: 'warn', sending: 'warn', published: 'good', applied: 'good', tripped: 'bad', draft: 'warn', open: 'warn', reviewed: 'good', revoked: 'bad', error: 'bad', warning: 'warn', disabled: 'bad', abandoned: 'bad', failed: 'bad', rejected: 'bad', dead_letter: 'bad', archived: 'bad' };
/** The outcomes that need a look (the service's own list: with_invalid, not_well_formed, tripped, failed). */
const PROBLEMS = 'with_invalid,not_well_formed,tripped,failed';
const badge = (status) => el('span', { class: `badge ${STATUS_TONE[status] ?? ''}` }, String(status).replace(/_/g, ' '));

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The admin API with the operator token; throws ApiError with the server's own error text. */
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status === 401 && path !== '/v1/admin/stats') signOut('Your session ended: the token is no longer accepted.');
    throw new ApiError(res.status, data?.error ?? `${res.status} ${res.statusText}`);
  }
  return data;
}

/** Where a view shows what the server said. */
function flash(kind, message) {
  const box = document.getElementById('flash');
  if (!box) return;
  box.replaceChildren(message ? el('div', { class: `flash ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message) : '');
}

/** Runs an action, shows the server's error text if it fails, and the result otherwise. */
async function act(action, done) {
  try {
    const result = await action();
    if (done) flash('info', done);
    return result;
  } catch (err) {
    flash('error', err.message);
    return undefined;
  }
}

const confirmFirst = (question) => window.confirm(question);

/** A button that copies a value (a key id, a new secret) to the clipboard and says so. */
const copyButton = (value, label) =>
  el(
    'button',
    {
      type: 'button',
      class: 'copy',
      onclick: async (event) => {
        const button = event.currentTarget;
        try {
          await navigator.clipboard.writeText(value);
          button.textContent = 'Copied';
        } catch {
          button.textContent = 'Select and copy it';
        }
        setTimeout(() => (button.textContent = label), 2000);
      },
    },
    label,
  );

/** The parameters after the view in the address (#/feeds?problems=24h). */
const hashParams = () => new URLSearchParams(location.hash.split('?')[1] ?? '');

function table(headers, rows, empty) {
  if (rows.length === 0) return el('div', { class: 'panel empty' }, empty);
  return el('table', {}, el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))), el('tbody', {}, rows));
}

// ---------- sign-in and layout ----------

/**
 * Opens the queue board's session: an HttpOnly, SameSite=Strict cookie the server sets for /admin,
 * so the board needs no password prompt and no other site can use it.
 */
async function openBoardSession() {
  await fetch('/admin/session', { method: 'POST', headers: { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` } }).catch(() => undefined);
}

/** Sent here by the queue board to sign in: back to it once signed in. */
const wantsBoard = () => new URLSearchParams(location.search).get('next') === 'queues';

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  fetch('/admin/session', { method: 'DELETE' }).catch(() => undefined);
  location.hash = '';
  renderSignIn(message);
}

function renderSignIn(message, kind = 'error') {
  clearInterval(refreshTimer);
  const input = el('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, 'aria-label': 'Operator token' });
  const error = el('div', { id: 'signin-error' }, message ? el('div', { class: `flash ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message) : '');
  const form = el(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        try {
          await api('GET', '/v1/admin/stats');
          await openBoardSession();
          if (wantsBoard()) {
            location.assign('/admin/queues');
            return;
          }
          location.hash = '#/dashboard';
          route();
        } catch (err) {
          sessionStorage.removeItem(TOKEN_KEY);
          error.replaceChildren(el('div', { class: 'flash error', role: 'alert' }, err.status === 401 ? 'That token was not accepted.' : err.message));
        }
      },
    },
    el('label', {}, 'Operator token', input),
    el('p', {}, el('button', { class: 'primary', type: 'submit' }, 'Sign in')),
  );
  app.replaceChildren(
    el(
      'div',
      { class: 'signin' },
      el('h1', {}, 'Operator console'),
      el('div', { class: 'panel' }, el('p', { class: 'muted' }, 'Sign in with OPERATOR_TOKEN or a named operator token. It is kept in this tab only.'), error, form),
    ),
  );
  input.focus();
}

const VIEWS = [
  ['dashboard', 'Dashboard'],
  ['keys', 'Feed keys'],
  ['feeds', 'Feeds'],
  ['quarantine', 'Quarantine'],
  ['listings', 'Listings'],
  ['leads', 'Leads'],
  ['offices', 'Offices'],
  ['webhooks', 'Webhooks'],
  ['site', 'Site'],
  ['audit', 'Audit log'],
];

function layout(current, title) {
  const main = el('main', {}, el('h1', {}, title), el('div', { id: 'flash' }), el('div', { id: 'view' }, el('p', { class: 'muted' }, 'Loading…')));
  const nav = el(
    'nav',
    { class: 'side', 'aria-label': 'Console' },
    el('div', { class: 'brand' }, 'Listing service'),
    VIEWS.map(([id, label]) => el('a', { href: `#/${id}`, class: id === current ? 'active' : undefined, 'aria-current': id === current ? 'page' : undefined }, label)),
    el('div', { class: 'foot' }, el('a', { href: '/admin/queues', id: 'board-link', hidden: true }, 'Queue board ↗'), el('a', { href: '/docs/' }, 'API reference ↗'), el('a', { href: '#', onclick: (e) => (e.preventDefault(), signOut()) }, 'Sign out')),
  );
  app.replaceChildren(el('div', { class: 'shell' }, nav, main));
  return document.getElementById('view');
}

// ---------- views ----------

async function dashboard(view) {
  const draw = async () => {
    const s = await api('GET', '/v1/admin/stats');
    if (s.queues && !s.queues.error) document.getElementById('board-link')?.removeAttribute('hidden');
    const card = (label, figure, detail) => el('div', { class: 'card' }, el('div', { class: 'label' }, label), el('div', { class: 'figure' }, figure), el('div', { class: 'detail' }, detail ?? ''));
    const statusLine = (map) => Object.entries(map ?? {}).map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`).join(' · ') || 'none';
    const queueLine = (q) => (q ? `waiting ${q.waiting} · active ${q.active} · delayed ${q.delayed} · failed ${q.failed}` : '');
    view.replaceChildren(
      el(
        'div',
        { class: 'cards' },
        card('Listings', s.listings.total, `${s.listings.public} public · ${s.listings.hidden} hidden · ${s.listings.archived} archived`),
        card('Directory', `${s.directory.agents} / ${s.directory.offices}`, 'agents / offices'),
        el(
          'a',
          { class: `card link${s.feeds.last24h.problems ? ' alert' : ''}`, href: '#/feeds?problems=24h', id: 'problem-feeds' },
          el('div', { class: 'label' }, 'Feeds needing a look'),
          el('div', { class: 'figure' }, s.feeds.last24h.problems),
          el('div', { class: 'detail' }, `of ${s.feeds.last24h.total} in 24 h · ${s.feeds.last7d.problems} of ${s.feeds.last7d.total} in 7 days`),
        ),
        card('Quarantine', s.quarantine.open, 'open circuit-breaker trips'),
        card('Feed keys', s.feedKeys.active, `active · ${s.feedKeys.suspended} waiting for approval`),
        card('Blocklist', s.blocklist.entries, 'senders blocked'),
      ),
      el('h2', {}, 'Listings by status'),
      el('div', { class: 'panel' }, statusLine(s.listings.byStatus)),
      el('h2', {}, 'Leads by status'),
      el('div', { class: 'panel' }, statusLine(s.leads)),
      el('h2', {}, 'Queues'),
      el(
        'div',
        { class: 'panel' },
        s.queues
          ? s.queues.error
            ? el('span', { class: 'muted' }, `Queue depths unavailable: ${s.queues.error}`)
            : el(
                'div',
                {},
                el('div', {}, el('strong', {}, 'ingest: '), queueLine(s.queues.ingest)),
                el('div', {}, el('strong', {}, 'lead delivery: '), queueLine(s.queues.leadDelivery)),
                s.queues.webhookDelivery ? el('div', {}, el('strong', {}, 'webhook delivery: '), queueLine(s.queues.webhookDelivery)) : null,
              )
          : el('span', { class: 'muted' }, 'In-process queue (no REDIS_URL): no queue board.'),
      ),
      el('p', { class: 'muted' }, `Updated ${new Date().toLocaleTimeString()}; refreshes every 10 seconds.`),
    );
  };
  await act(draw);
  refreshTimer = setInterval(() => act(draw), 10_000);
}

async function keys(view) {
  const client = el('input', { name: 'clientName', required: true, placeholder: 'Acme CRM' });
  const email = el('input', { name: 'alertEmail', type: 'email', required: true, placeholder: 'feeds@acme.example' });
  const offices = el('input', { name: 'officeIds', required: true, placeholder: 'OFF1, OFF2' });
  const created = el('div');
  const draw = async () => {
    const { keys: list } = await api('GET', '/v1/admin/keys');
    const change = (key, action) => async () => {
      if (action === 'revoke' && !confirmFirst(`Revoke the key of ${key.clientName}? Its feeds are refused from now on.`)) return;
      if (await act(() => api('POST', `/v1/admin/keys/${key.id}/${action}`), `Key of ${key.clientName} ${action === 'approve' ? 'approved' : 'revoked'}.`)) await draw();
    };
    tableBox.replaceChildren(
      table(
        ['Client', 'Key id', 'Alert email', 'Offices', 'Status', 'Created', 'Newest feed', ''],
        list.map((k) =>
          el(
            'tr',
            { 'data-key': k.id },
            el('td', {}, k.clientName),
            el('td', {}, el('code', { class: 'key-id' }, k.id.slice(0, 8)), ' ', copyButton(k.id, 'Copy id')),
            el('td', {}, k.alertEmail),
            el('td', {}, k.officeIds.join(', ')),
            el('td', {}, badge(k.status)),
            el('td', {}, when(k.createdAt)),
            el(
              'td',
              {},
              k.lastFeed
                ? el('a', { href: `#/feeds?key=${k.id}` }, when(k.lastFeed.createdAt), ' ', badge(k.lastFeed.outcome))
                : el('span', { class: 'muted' }, 'none yet'),
            ),
            el(
              'td',
              { class: 'actions' },
              k.status === 'suspended' ? el('button', { class: 'primary', onclick: change(k, 'approve') }, 'Approve') : null,
              k.status !== 'revoked' ? el('button', { class: 'danger', onclick: change(k, 'revoke') }, 'Revoke') : null,
            ),
          ),
        ),
        'No feed keys yet.',
      ),
    );
  };
  const tableBox = el('div');
  const form = el(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        const body = { clientName: client.value, alertEmail: email.value, officeIds: offices.value.split(',').map((o) => o.trim()).filter(Boolean) };
        const key = await act(() => api('POST', '/v1/admin/keys', body), `Key created for ${body.clientName}.`);
        if (!key) return;
        created.replaceChildren(el('div', { class: 'panel' }, el('strong', {}, 'The new key, shown only now:'), el('div', { class: 'secret' }, key.key), copyButton(key.key, 'Copy key')));
        form.reset();
        await draw();
      },
    },
    el('label', {}, 'Client', client),
    el('label', {}, 'Alert email', email),
    el('label', {}, 'Offices (comma-separated)', offices),
    el('button', { class: 'primary', type: 'submit' }, 'Create active key'),
  );
  view.replaceChildren(tableBox, el('h2', {}, 'Create a key'), el('div', { class: 'panel' }, form, created));
  await act(draw);
}

async function feeds(view) {
  const status = el('select', { name: 'status' }, ['', 'queued', 'running', 'done', 'failed', 'rejected'].map((s) => el('option', { value: s }, s || 'any status')));
  const OUTCOMES = [
    ['', 'any outcome'],
    [PROBLEMS, 'needs a look'],
    ['ok', 'ok'],
    ['with_invalid', 'with invalid'],
    ['not_well_formed', 'not well formed'],
    ['tripped', 'tripped'],
    ['failed', 'failed'],
    ['rejected', 'rejected'],
    ['queued,running', 'not finished'],
  ];
  const outcome = el('select', { name: 'outcome' }, OUTCOMES.map(([v, label]) => el('option', { value: v }, label)));
  const period = el('select', { name: 'period' }, [['', 'any time'], ['24h', 'last 24 hours'], ['7d', 'last 7 days']].map(([v, label]) => el('option', { value: v }, label)));
  const wanted = hashParams().get('problems');
  if (wanted === '24h' || wanted === '7d') {
    outcome.value = PROBLEMS;
    period.value = wanted;
  }
  const keyId = el('select', { name: 'keyId' }, el('option', { value: '' }, 'any key'));
  const wantedKey = hashParams().get('key');
  // The keys by client name (and offices), so the filter needs no id typed.
  const { keys: keyList } = await api('GET', '/v1/admin/keys').catch(() => ({ keys: [] }));
  for (const k of keyList) keyId.append(el('option', { value: k.id }, `${k.clientName} (${k.officeIds.join(', ')})${k.status === 'active' ? '' : ` · ${k.status}`}`));
  if (wantedKey) keyId.value = wantedKey;
  const office = el('input', { name: 'office', placeholder: 'office', value: hashParams().get('office') ?? undefined });
  const box = el('div');
  const draw = async () => {
    const q = new URLSearchParams({ limit: '50' });
    if (status.value) q.set('status', status.value);
    if (outcome.value) q.set('outcome', outcome.value);
    if (period.value) q.set('since', new Date(Date.now() - (period.value === '24h' ? 1 : 7) * 86_400_000).toISOString());
    if (keyId.value) q.set('keyId', keyId.value);
    if (office.value.trim()) q.set('office', office.value.trim());
    const { total, feeds: list } = await api('GET', `/v1/admin/feeds?${q}`);
    const rows = list.flatMap((f) => {
      const issuesCell = el('td', { colspan: 7 });
      const issues = el('tr', { hidden: true, class: 'issues-row' }, issuesCell);
      const toggleIssues = async (event) => {
        issues.hidden = !issues.hidden;
        event.currentTarget.setAttribute('aria-expanded', String(!issues.hidden));
        if (!issues.hidden) await act(() => feedIssuesPanel(issuesCell, f.feedId));
      };
      const retry = async () => {
        if (!confirmFirst('Run this feed again from its stored body?')) return;
        if (await act(() => api('POST', `/v1/admin/feeds/${f.feedId}/retry`), 'Feed queued again.')) await draw();
      };
      const counts = f.counts ? `${f.counts.parsed} parsed · ${f.counts.valid} valid · ${f.counts.invalid} invalid` : f.progress ? `so far ${f.progress.parsed} read · ${f.progress.applied} applied` : '—';
      const summary = f.summary ? Object.entries(f.summary).filter(([, n]) => n).map(([k, n]) => `${k.replace('_', ' ')} ${n}`).join(', ') || 'nothing changed' : '';
      const reconcile = f.reconcile
        ? el('div', {}, 'reconcile ', badge(f.reconcile.status), f.reconcile.archived ? ` ${f.reconcile.archived} archived` : '', f.reconcile.status === 'tripped' ? [' · ', el('a', { href: '#/quarantine' }, 'review')] : null)
        : null;
      // A feed that could not be read says why where its error goes (its one issue carries the reason).
      const unreadable = f.outcome === 'not_well_formed' ? f.issues.find((i) => i.code === 'feed_not_well_formed')?.message : null;
      return [
        el(
          'tr',
          { 'data-feed': f.feedId },
          el('td', {}, when(f.createdAt), el('div', { class: 'muted' }, `${f.source} · ${f.format} · ${f.mode}`)),
          el('td', {}, badge(f.outcome ?? f.status)),
          el('td', {}, f.officeScope.join(', ')),
          el('td', {}, counts, el('div', { class: 'muted' }, summary), reconcile),
          el('td', {}, f.error ?? unreadable ?? '', f.errorDetail ? el('pre', {}, f.errorDetail.split('\n')[0]) : null),
          el('td', { class: 'num' }, f.attempts),
          el(
            'td',
            { class: 'actions' },
            el('button', { onclick: toggleIssues, 'aria-expanded': 'false' }, `Issues (${f.issues.length})`),
            f.status === 'failed' ? el('button', { class: 'primary', onclick: retry }, 'Retry') : null,
          ),
        ),
        issues,
      ];
    });
    box.replaceChildren(el('p', { class: 'muted' }, `${total} feed(s); newest first, up to 50 shown.`), table(['Received', 'Outcome', 'Offices', 'Counts', 'Error', 'Attempts', ''], rows, 'No feeds match.'));
  };
  const filters = el(
    'form',
    { class: 'filters', onsubmit: (e) => (e.preventDefault(), act(draw)) },
    el('label', {}, 'Outcome', outcome),
    el('label', {}, 'Received', period),
    el('label', {}, 'Status', status),
    el('label', {}, 'Key', keyId),
    el('label', {}, 'Office', office),
    el('button', { type: 'submit' }, 'Filter'),
  );
  view.replaceChildren(filters, box);
  await act(draw);
}

/**
 * One feed's issues as a table: counts per level and code (a code filters the table), errors or
 * warnings alone, each issue numbered as among all the feed's issues (from 1, as the developer page
 * and the API number them), its listing linked to the listings page.
 */
async function feedIssuesPanel(cell, feedId) {
  const filter = { level: '', code: '' };
  const draw = async () => {
    const q = new URLSearchParams({ limit: '200' });
    if (filter.level) q.set('level', filter.level);
    if (filter.code) q.set('code', filter.code);
    const page = await api('GET', `/v1/admin/feeds/${feedId}/issues?${q}`);
    const chip = (label, active, onclick) => el('button', { type: 'button', class: active ? 'chip active' : 'chip', 'aria-pressed': String(active), onclick }, label);
    const pick = (key, value) => async () => {
      filter[key] = filter[key] === value ? '' : value;
      await act(draw);
    };
    cell.replaceChildren(
      page.counts.errors + page.counts.warnings === 0
        ? el('span', { class: 'muted' }, 'No issues.')
        : el(
            'div',
            { class: 'issues' },
            el(
              'div',
              { class: 'chips', role: 'group', 'aria-label': 'Filter issues' },
              chip(`errors ${page.counts.errors}`, filter.level === 'error', pick('level', 'error')),
              chip(`warnings ${page.counts.warnings}`, filter.level === 'warning', pick('level', 'warning')),
              Object.entries(page.counts.byCode)
                .sort((a, b) => b[1] - a[1])
                .map(([code, n]) => chip(`${code} ${n}`, filter.code === code, pick('code', code))),
            ),
            table(
              ['#', 'Level', 'Code', 'Listing', 'Where', 'Message'],
              page.issues.map((i) =>
                el(
                  'tr',
                  { 'data-issue': i.number },
                  el('td', { class: 'num' }, i.number),
                  el('td', {}, badge(i.level)),
                  el('td', {}, el('code', {}, i.code)),
                  el('td', {}, i.uniqueId ? el('a', { href: `#/listings?q=${encodeURIComponent(i.uniqueId)}` }, i.uniqueId) : '—', i.listingIndex === null ? null : el('div', { class: 'muted' }, `listing ${i.listingIndex + 1} in the feed`)),
                  el('td', {}, el('code', { class: 'path' }, i.path)),
                  el('td', {}, i.message),
                ),
              ),
              'No issues match.',
            ),
            page.total > page.issues.length ? el('p', { class: 'muted' }, `${page.issues.length} of ${page.total} shown.`) : null,
          ),
    );
  };
  await draw();
}

async function quarantine(view) {
  const all = el('input', { type: 'checkbox', name: 'includeResolved' });
  const box = el('div');
  const held = el('div', { id: 'held' });
  const HELD_PAGE = 50;
  /** Every listing a trip would archive, as it is now, a page at a time. */
  const showHeld = async (item, offset) => {
    const page = await api('GET', `/v1/admin/quarantine/${item.id}/listings?limit=${HELD_PAGE}&offset=${offset}`);
    held.replaceChildren(
      el('h2', {}, `What the trip of ${item.office} would archive`),
      table(
        ['Listing', 'Headline', 'Status now', 'Since the trip'],
        page.listings.map((l) =>
          el(
            'tr',
            { 'data-held': l.listingKey },
            el('td', {}, el('a', { href: `#/listings?q=${encodeURIComponent(l.uniqueId)}` }, l.listingKey)),
            el('td', {}, l.headline ?? ''),
            el('td', {}, l.status ? badge(l.status) : el('span', { class: 'muted' }, 'no longer stored')),
            el('td', {}, l.writtenSince ? 'sent again: applying leaves it' : el('span', { class: 'muted' }, 'not written')),
          ),
        ),
        'Nothing held.',
      ),
      el(
        'div',
        { class: 'pager' },
        el('span', { class: 'muted' }, `${offset + 1}–${offset + page.listings.length} of ${page.total}`),
        el('button', { type: 'button', disabled: offset === 0, onclick: () => act(() => showHeld(item, Math.max(0, offset - HELD_PAGE))) }, 'Previous'),
        el('button', { type: 'button', disabled: page.nextOffset === null, onclick: () => act(() => showHeld(item, page.nextOffset)) }, 'Next'),
      ),
    );
  };
  const draw = async () => {
    const { items } = await api('GET', `/v1/admin/quarantine?includeResolved=${all.checked}`);
    const resolve = (item, action) => async () => {
      const question =
        action === 'apply'
          ? `Archive the ${item.archiveCount} listing(s) of office ${item.office} that the feed no longer carried? Check first that the feed was complete.`
          : `Mark this trip of office ${item.office} reviewed without archiving anything?`;
      if (!confirmFirst(question)) return;
      if (await act(() => api('POST', `/v1/admin/quarantine/${item.id}/resolve`, { action }), action === 'apply' ? 'Archive applied.' : 'Marked reviewed.')) await draw();
    };
    box.replaceChildren(
      table(
        ['Tripped', 'Office', 'Would archive', 'Feed', 'Listings it would archive', 'State', ''],
        items.map((i) =>
          el(
            'tr',
            { 'data-item': i.id },
            el('td', {}, when(i.createdAt)),
            el('td', {}, i.office),
            el('td', { class: 'num' }, `${i.archiveCount} of ${i.nonArchivedCount}`),
            el('td', {}, el('a', { href: `#/feeds?office=${encodeURIComponent(i.office)}`, title: `feed ${i.feedId}` }, el('code', {}, i.feedId.slice(0, 8)))),
            el(
              'td',
              {},
              el('pre', {}, [...i.keys, ...i.projectKeys].slice(0, 12).join('\n') + (i.keys.length + i.projectKeys.length > 12 ? '\n…' : '')),
              i.keys.length ? el('button', { type: 'button', onclick: () => act(() => showHeld(i, 0)) }, `All ${i.keys.length} listing(s)`) : null,
            ),
            el('td', {}, i.resolved ? badge(i.resolution ?? 'resolved') : badge('open')),
            el(
              'td',
              { class: 'actions' },
              i.resolved ? null : [el('button', { onclick: resolve(i, 'review') }, 'Reviewed, keep'), el('button', { class: 'danger', onclick: resolve(i, 'apply') }, 'Apply archive')],
            ),
          ),
        ),
        'No open circuit-breaker trips.',
      ),
    );
  };
  view.replaceChildren(el('div', { class: 'filters' }, el('label', {}, 'Include resolved', all)), box, held);
  all.addEventListener('change', () => act(draw));
  await act(draw);
}

async function listings(view) {
  const q = el('input', { name: 'q', placeholder: 'key, address or headline', size: 30, value: hashParams().get('q') ?? undefined });
  const hidden = el('select', { name: 'hidden' }, el('option', { value: '' }, 'hidden or not'), el('option', { value: 'true' }, 'hidden only'), el('option', { value: 'false' }, 'visible only'));
  const box = el('div');
  const draw = async () => {
    const params = new URLSearchParams({ limit: '50' });
    if (q.value.trim()) params.set('q', q.value.trim());
    if (hidden.value) params.set('hidden', hidden.value);
    const { total, listings: list } = await api('GET', `/v1/admin/listings?${params}`);
    const toggle = (l) => async () => {
      if (!l.hidden && !confirmFirst(`Hide ${l.listingKey} from every public read?`)) return;
      const done = await act(() => api('POST', '/v1/admin/listings/visibility', { officeId: l.office, uniqueId: l.uniqueId, hidden: !l.hidden }), `${l.listingKey} is ${l.hidden ? 'visible again' : 'hidden'}.`);
      if (done) await draw();
    };
    box.replaceChildren(
      el('p', { class: 'muted' }, `${total} listing(s), hidden and unpublished included; most recently changed first, up to 50 shown.`),
      table(
        ['Listing', 'Headline', 'Address', 'Status', 'Public', 'Changed', ''],
        list.map((l) =>
          el(
            'tr',
            { 'data-listing': l.listingKey },
            el('td', {}, el('code', {}, l.listingKey)),
            el('td', {}, text(l.headline)),
            el('td', {}, addressLine(l.address)),
            el('td', {}, badge(l.status), l.hidden ? [' ', badge('hidden')] : null),
            el('td', {}, l.public ? 'yes' : 'no'),
            el('td', {}, when(l.updatedAt)),
            el('td', { class: 'actions' }, el('button', { class: l.hidden ? 'primary' : 'danger', onclick: toggle(l) }, l.hidden ? 'Show' : 'Hide')),
          ),
        ),
        'No listings match.',
      ),
    );
  };
  view.replaceChildren(el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), act(draw)) }, el('label', {}, 'Search', q), el('label', {}, 'Visibility', hidden), el('button', { type: 'submit' }, 'Search')), box);
  await act(draw);
}

async function leads(view) {
  const status = el('select', { name: 'status' }, ['', 'pending', 'sending', 'delivered', 'failed', 'dead_letter', 'purged'].map((s) => el('option', { value: s }, s ? s.replace('_', ' ') : 'any status')));
  const box = el('div');
  const blockBox = el('div');
  const draw = async () => {
    const { total, leads: list } = await api('GET', `/v1/admin/leads?limit=50${status.value ? `&status=${status.value}` : ''}`);
    const rows = list.flatMap((l) => {
      const detail = el('tr', { hidden: true }, el('td', { colspan: 6 }, el('pre', {}, [`From: ${l.contact?.name ?? ''} <${l.contact?.email ?? ''}>${l.contact?.phone ? `  ${l.contact.phone}` : ''}`, '', l.contact?.message ?? '(erased)', '', l.lastError ? `Last error: ${l.lastError}` : ''].join('\n'))));
      const retry = async () => {
        if (await act(() => api('POST', `/v1/admin/leads/${l.id}/retry`), 'Lead queued for delivery again.')) await draw();
      };
      return [
        el(
          'tr',
          { 'data-lead': l.id },
          el('td', {}, when(l.createdAt)),
          el('td', {}, badge(l.status)),
          el('td', {}, el('code', {}, l.listing.listingKey)),
          el('td', {}, l.recipient ?? '—', el('div', { class: 'muted' }, l.recipientSource ?? '')),
          el('td', { class: 'num' }, l.attempts),
          el('td', { class: 'actions' }, el('button', { onclick: () => (detail.hidden = !detail.hidden) }, 'View'), l.status === 'failed' ? el('button', { class: 'primary', onclick: retry }, 'Retry') : null),
        ),
        detail,
      ];
    });
    box.replaceChildren(el('p', { class: 'muted' }, `${total} lead(s); newest first, up to 50 shown.`), table(['Received', 'Status', 'Listing', 'Recipient', 'Attempts', ''], rows, 'No leads match.'));
    const { entries } = await api('GET', '/v1/admin/blocklist');
    const remove = (e) => async () => {
      if (!confirmFirst(`Unblock ${e.value}?`)) return;
      if (await act(() => api('DELETE', '/v1/admin/blocklist', { id: String(e.id) }), `${e.value} unblocked.`)) await draw();
    };
    blockBox.replaceChildren(
      table(
        ['Kind', 'Value', 'Reason', 'Added', ''],
        entries.map((e) => el('tr', { 'data-block': e.value }, el('td', {}, e.kind), el('td', {}, e.value), el('td', {}, e.reason ?? ''), el('td', {}, when(e.createdAt)), el('td', { class: 'actions' }, el('button', { class: 'danger', onclick: remove(e) }, 'Remove')))),
        'Nobody is blocked.',
      ),
    );
  };
  const kind = el('select', { name: 'kind' }, el('option', { value: 'email' }, 'email'), el('option', { value: 'domain' }, 'domain'));
  const value = el('input', { name: 'value', required: true, placeholder: 'spam@example.com or example.com' });
  const reason = el('input', { name: 'reason', placeholder: 'why (optional)' });
  const force = el('input', { type: 'checkbox', name: 'force' });
  const block = el(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        const body = { kind: kind.value, value: value.value.trim(), ...(reason.value.trim() ? { reason: reason.value.trim() } : {}), ...(force.checked ? { force: true } : {}) };
        if (await act(() => api('POST', '/v1/admin/blocklist', body), `${body.value} blocked.`)) {
          block.reset();
          await draw();
        }
      },
    },
    el('label', {}, 'Kind', kind),
    el('label', {}, 'Value', value),
    el('label', {}, 'Reason', reason),
    el('label', {}, 'Common provider', force),
    el('button', { class: 'primary', type: 'submit' }, 'Block'),
  );
  view.replaceChildren(
    el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), act(draw)) }, el('label', {}, 'Status', status), el('button', { type: 'submit' }, 'Filter')),
    box,
    el('h2', {}, 'Sender blocklist'),
    el('div', { class: 'panel' }, block),
    blockBox,
  );
  await act(draw);
}

async function offices(view) {
  const office = el('input', { name: 'office', required: true, placeholder: 'OFF1' });
  const box = el('div');
  const orNull = (input) => input.value.trim() || null;
  /** The office's editors, filled with what is stored: saving changes only what the operator changed. */
  const editors = (id, current) => {
    const leadEmail = el('input', { name: 'leadEmail', type: 'email', placeholder: 'enquiries@agency.example', value: current.leadEmail ?? '' });
    const saveLeadEmail = async (event) => {
      event.preventDefault();
      const next = orNull(leadEmail);
      if (next === current.leadEmail) return flash('info', `Nothing to save: the lead email of ${id} is unchanged.`);
      if (!next && !confirmFirst(`Clear the lead email of ${id} (${current.leadEmail})? Enquiries with no agent email will have nowhere to go.`)) return;
      const saved = await act(() => api('PUT', `/v1/admin/offices/${encodeURIComponent(id)}`, { leadEmail: next }), `Lead email of ${id} ${next ? 'saved' : 'cleared'}.`);
      if (saved) current.leadEmail = saved.leadEmail;
    };
    const drop = current.dropSettings;
    const fields = Object.fromEntries(
      [
        ['currency', 'Currency (ISO-4217)', 'AUD'],
        ['country', 'Country (ISO-3166)', 'AU'],
        ['locale', 'Locale', 'en-AU'],
        ['alertEmail', 'Alert email', 'feeds@agency.example'],
      ].map(([name, label, placeholder]) => [name, { label, input: el('input', { name, placeholder, value: drop[name] ?? '' }) }]),
    );
    const saveDrop = async (event) => {
      event.preventDefault();
      const body = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, orNull(f.input)]));
      if (Object.entries(body).every(([name, value]) => value === (drop[name] ?? null))) return flash('info', `Nothing to save: the SFTP drop settings of ${id} are unchanged.`);
      const saved = await act(() => api('PUT', `/v1/admin/offices/${encodeURIComponent(id)}/drop-settings`, body), `SFTP drop settings of ${id} saved.`);
      if (saved) Object.assign(drop, saved);
    };
    const statuses = Object.entries(current.listingsByStatus ?? {});
    return [
      el('h2', {}, `Office ${id}`),
      el(
        'div',
        { class: 'panel' },
        el('p', {}, statuses.length ? `Listings: ${statuses.map(([s, n]) => `${n} ${s.replace(/_/g, ' ')}`).join(', ')}.` : 'No listings stored.'),
        el('p', {}, current.keys?.length ? ['Feed keys: ', current.keys.map((k) => `${k.clientName} (${k.status})`).join(', '), '.'] : 'No feed key covers this office.'),
      ),
      el('h2', {}, `Leads for ${id}`),
      el(
        'div',
        { class: 'panel' },
        el('p', { class: 'muted' }, 'Where enquiries go when no agent of the listing has an email.'),
        el('form', { class: 'inline', onsubmit: saveLeadEmail }, el('label', {}, 'Office lead email', leadEmail), el('button', { class: 'primary', type: 'submit' }, 'Save lead email')),
      ),
      el('h2', {}, `SFTP drops for ${id}`),
      el(
        'div',
        { class: 'panel' },
        el('p', { class: 'muted' }, `Context for files dropped in ${id}/inbox/; empty fields use the service defaults.`),
        el('form', { class: 'inline', onsubmit: saveDrop }, Object.values(fields).map((f) => el('label', {}, f.label, f.input)), el('button', { class: 'primary', type: 'submit' }, 'Save drop settings')),
      ),
    ];
  };
  const load = async () => {
    const id = office.value.trim();
    box.replaceChildren();
    let current;
    try {
      current = await api('GET', `/v1/admin/offices/${encodeURIComponent(id)}`);
    } catch (err) {
      if (err.status !== 404) throw err;
      // An office the service knows nothing of: say so, and open empty editors only when asked.
      const setUp = () => box.replaceChildren(...editors(id, { leadEmail: null, dropSettings: {}, listingsByStatus: {}, keys: [] }));
      box.replaceChildren(el('div', { class: 'panel' }, el('p', {}, `No listing, feed key or setting names office ${id}. Check the id, or set it up as a new office.`), el('button', { onclick: setUp }, `Set up ${id}`)));
      return;
    }
    box.replaceChildren(...editors(id, current));
  };
  const list = officeList((id) => {
    office.value = id;
    flash('info', '');
    return act(load);
  });
  view.replaceChildren(
    list.node,
    el('h2', {}, 'Open an office'),
    el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), flash('info', ''), act(load)) }, el('label', {}, 'Office id', office), el('button', { type: 'submit' }, 'Open')),
    box,
  );
  await act(list.draw);
}

/**
 * Every office the service knows of, as a sortable, paged table (listings, lead email, drop
 * settings, keys, newest feed); choosing one opens it below.
 */
function officeList(open) {
  const PAGE = 25;
  const state = { q: '', sort: 'office', offset: 0 };
  const q = el('input', { name: 'officeFilter', placeholder: 'part of an office id', 'aria-label': 'Find an office' });
  const box = el('div');
  const SORTS = [
    ['Office', 'office'],
    ['Listings', '-listings'],
    ['Newest feed', '-lastFeed'],
  ];
  const draw = async () => {
    const params = new URLSearchParams({ sort: state.sort, limit: String(PAGE), offset: String(state.offset) });
    if (state.q) params.set('q', state.q);
    const page = await api('GET', `/v1/admin/offices?${params}`);
    const header = (label, key) => {
      const active = state.sort.replace(/^-/, '') === key.replace(/^-/, '');
      const next = active ? (state.sort.startsWith('-') ? state.sort.slice(1) : `-${state.sort}`) : key;
      const arrow = active ? (state.sort.startsWith('-') ? ' ↓' : ' ↑') : '';
      return el(
        'th',
        { 'aria-sort': active ? (state.sort.startsWith('-') ? 'descending' : 'ascending') : undefined },
        el('button', { type: 'button', class: 'sort', onclick: () => ((state.sort = next), (state.offset = 0), act(draw)) }, `${label}${arrow}`),
      );
    };
    const rows = page.offices.map((o) =>
      el(
        'tr',
        { 'data-office': o.office },
        el('td', {}, el('button', { type: 'button', class: 'link', onclick: () => open(o.office) }, o.office)),
        el('td', { class: 'num' }, `${o.listings.public} / ${o.listings.total}`),
        el('td', {}, o.leadEmail ?? el('span', { class: 'muted' }, 'none')),
        el('td', {}, o.dropSettings ? 'set' : el('span', { class: 'muted' }, 'defaults')),
        el('td', {}, o.keys.length ? o.keys.map((k) => `${k.clientName} (${k.status})`).join(', ') : el('span', { class: 'muted' }, 'none')),
        el('td', {}, o.lastFeed ? [when(o.lastFeed.createdAt), ' ', badge(o.lastFeed.outcome)] : el('span', { class: 'muted' }, 'never')),
      ),
    );
    const first = page.total === 0 ? 0 : state.offset + 1;
    box.replaceChildren(
      page.total === 0
        ? el('div', { class: 'panel empty' }, state.q ? 'No office matches.' : 'No offices yet.')
        : el(
            'table',
            {},
            el(
              'thead',
              {},
              el('tr', {}, header(SORTS[0][0], SORTS[0][1]), header('Public / listings', SORTS[1][1]), el('th', {}, 'Lead email'), el('th', {}, 'SFTP drops'), el('th', {}, 'Feed keys'), header(SORTS[2][0], SORTS[2][1])),
            ),
            el('tbody', {}, rows),
          ),
      el(
        'div',
        { class: 'pager' },
        el('span', { class: 'muted' }, `${first}–${state.offset + page.offices.length} of ${page.total} office(s)`),
        el('button', { type: 'button', disabled: state.offset === 0, onclick: () => ((state.offset = Math.max(0, state.offset - PAGE)), act(draw)) }, 'Previous'),
        el('button', { type: 'button', disabled: page.nextOffset === null, onclick: () => ((state.offset = page.nextOffset), act(draw)) }, 'Next'),
      ),
    );
  };
  const node = el(
    'div',
    {},
    el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), (state.q = q.value.trim()), (state.offset = 0), act(draw)) }, el('label', {}, 'Find an office', q), el('button', { type: 'submit' }, 'Find')),
    box,
  );
  return { node, draw };
}

async function site(view) {
  const box = el('div');
  const json = (value) => JSON.stringify(value ?? {}, null, 2);
  const parse = (area, what) => {
    try {
      return JSON.parse(area.value);
    } catch (err) {
      throw new Error(`${what} is not valid JSON: ${err.message}`);
    }
  };
  const draw = async () => {
    const [publicSite, { pages }] = await Promise.all([fetch('/v1/site').then((r) => r.json()), api('GET', '/v1/admin/site/pages')]);
    const settings = ['identity', 'seo', 'favicon'].map((key) => {
      const area = el('textarea', { name: `setting-${key}`, rows: 5 }, json(publicSite.settings?.[key]));
      const save = async () => {
        if (await act(() => api('PUT', '/v1/admin/site/settings', { key, value: parse(area, key) }), `${key} saved.`)) await draw();
      };
      return el('div', { class: 'panel' }, el('strong', {}, key), area, el('p', {}, el('button', { class: 'primary', onclick: save }, `Save ${key}`)));
    });
    const nav = el('textarea', { name: 'navigation', rows: 8 }, JSON.stringify(publicSite.navigation ?? [], null, 2));
    const saveNav = async () => {
      if (await act(() => api('PUT', '/v1/admin/site/nav', { links: parse(nav, 'navigation') }), 'Navigation saved.')) await draw();
    };
    const slug = el('input', { name: 'slug', required: true, placeholder: 'about-us' });
    const title = el('input', { name: 'title', required: true, placeholder: 'About us' });
    const body = el('textarea', { name: 'body', rows: 4 });
    const formTitle = el('h2', {}, 'New page');
    const submit = el('button', { class: 'primary', type: 'submit' }, 'Create draft');
    /** The page being edited (null: the form creates a draft). */
    let editing = null;
    const edit = (p) => {
      editing = p;
      slug.value = p.slug;
      title.value = text(p.title);
      body.value = text(p.body);
      formTitle.textContent = `Edit page ${p.slug}`;
      submit.textContent = 'Save changes';
      slug.focus();
    };
    const create = el(
      'form',
      {
        onsubmit: async (event) => {
          event.preventDefault();
          const locale = 'en-AU';
          const page = { slug: slug.value.trim(), title: { [locale]: title.value }, body: { [locale]: body.value } };
          const done = editing
            ? await act(() => api('PUT', `/v1/admin/site/pages/id/${editing.id}`, page), `${page.slug} saved.`)
            : await act(() => api('POST', '/v1/admin/site/pages', page), `Draft ${page.slug} created.`);
          if (done) await draw();
        },
      },
      el('div', { class: 'inline filters' }, el('label', {}, 'Slug', slug), el('label', {}, 'Title', title)),
      el('label', {}, 'Body', body),
      el('p', {}, submit),
    );
    const pageRows = pages.map((p) => {
      const publish = async () => {
        if (await act(() => api('PUT', `/v1/admin/site/pages/id/${p.id}`, { published: !p.published }), `${p.slug} ${p.published ? 'is a draft again' : 'published'}.`)) await draw();
      };
      const remove = async () => {
        if (!confirmFirst(`Delete the page ${p.slug}?`)) return;
        if (await act(() => api('DELETE', `/v1/admin/site/pages/id/${p.id}`), `${p.slug} deleted.`)) await draw();
      };
      return el(
        'tr',
        { 'data-page': p.slug },
        el('td', {}, el('code', {}, p.slug)),
        el('td', {}, text(p.title)),
        el('td', {}, p.published ? badge('published') : badge('draft')),
        el('td', {}, when(p.updatedAt)),
        el(
          'td',
          { class: 'actions' },
          el('button', { onclick: () => edit(p) }, 'Edit'),
          el('button', { onclick: publish }, p.published ? 'Unpublish' : 'Publish'),
          el('button', { class: 'danger', onclick: remove }, 'Delete'),
        ),
      );
    });
    box.replaceChildren(
      el('h2', {}, 'Settings'),
      ...settings,
      el('h2', {}, 'Navigation'),
      el('div', { class: 'panel' }, el('p', { class: 'muted' }, 'A list of { kind, ref, label, visible, newTab }; an empty list restores the default.'), nav, el('p', {}, el('button', { class: 'primary', onclick: saveNav }, 'Save navigation'))),
      el('h2', {}, 'Pages'),
      table(['Slug', 'Title', 'State', 'Changed', ''], pageRows, 'No pages yet.'),
      formTitle,
      el('div', { class: 'panel' }, create),
    );
  };
  view.replaceChildren(box);
  await act(draw);
}

async function audit(view) {
  const action = el('input', { name: 'action', placeholder: 'e.g. key.approve' });
  const box = el('div');
  const draw = async () => {
    const { total, entries } = await api('GET', `/v1/admin/audit?limit=100${action.value.trim() ? `&action=${encodeURIComponent(action.value.trim())}` : ''}`);
    box.replaceChildren(
      el('p', { class: 'muted' }, `${total} entr${total === 1 ? 'y' : 'ies'}; newest first, up to 100 shown.`),
      table(
        ['When', 'Actor', 'Action', 'Target', 'Details'],
        entries.map((e) => el('tr', {}, el('td', {}, when(e.at)), el('td', {}, e.actor), el('td', {}, el('code', {}, e.action)), el('td', {}, e.target ?? ''), el('td', {}, e.details ? el('code', {}, JSON.stringify(e.details)) : ''))),
        'Nothing recorded yet.',
      ),
    );
  };
  view.replaceChildren(el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), act(draw)) }, el('label', {}, 'Action', action), el('button', { type: 'submit' }, 'Filter')), box);
  await act(draw);
}

const RENDER = {
  dashboard,
  keys,
  feeds,
  quarantine,
  listings,
  leads,
  offices,
  webhooks: (view) => webhooks(view, { el, when, badge, api, act, confirmFirst, table }),
  site,
  audit,
};

function route() {
  clearInterval(refreshTimer);
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    if (wantsBoard()) renderSignIn('Sign in to open the queue board.', 'info');
    else renderSignIn();
    return;
  }
  if (wantsBoard()) {
    openBoardSession().then(() => location.assign('/admin/queues'));
    return;
  }
  const id = location.hash.replace(/^#\//, '').split('?')[0] || 'dashboard';
  const [view, title] = VIEWS.find(([v]) => v === id) ?? VIEWS[0];
  RENDER[view](layout(view, title));
}

window.addEventListener('hashchange', route);
route();
