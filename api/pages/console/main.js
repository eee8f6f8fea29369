// The operator console: sign-in, then one page per admin task (each its own module under pages/),
// all talking to the admin API with the operator token.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, closeBoardSession, openBoardSession, whenSessionEnds } from './lib/api.js';
import { html } from './lib/html.js';
import { useRoute } from './lib/route.js';
import { askOpenTabs, dropToken, keepToken, token, whenSignedOutElsewhere } from './lib/session.js';
import { Audit } from './pages/audit.js';
import { Dashboard } from './pages/dashboard.js';
import { Feeds } from './pages/feeds.js';
import { Keys } from './pages/keys.js';
import { Leads } from './pages/leads.js';
import { ListingDetail } from './pages/listing-detail.js';
import { Listings } from './pages/listings.js';
import { Offices } from './pages/offices.js';
import { Quarantine } from './pages/quarantine.js';
import { Site } from './pages/site.js';
import { Webhooks } from './pages/webhooks.js';
import { ConfirmDialog } from './ui/confirm.js';
import { Flash, flash } from './ui/flash.js';

const VIEWS = [
  ['dashboard', 'Dashboard', Dashboard],
  ['keys', 'Feed keys', Keys],
  ['feeds', 'Feeds', Feeds],
  ['quarantine', 'Quarantine', Quarantine],
  ['listings', 'Listings', Listings],
  ['leads', 'Leads', Leads],
  ['offices', 'Offices', Offices],
  ['webhooks', 'Webhooks', Webhooks],
  ['site', 'Site', Site],
  ['audit', 'Audit log', Audit],
];

/** Sent here by the queue board to sign in: back to it once signed in. */
const wantsBoard = () => new URLSearchParams(location.search).get('next') === 'queues';

function SignIn({ message, onSignedIn }) {
  const [error, setError] = useState(message);
  const [busy, setBusy] = useState(false);
  const input = useRef(null);
  useEffect(() => input.current?.focus(), []);
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    keepToken(String(form.get('token')).trim(), form.get('remember') === 'on');
    try {
      await api('GET', '/v1/admin/stats');
      await openBoardSession();
      if (wantsBoard()) return location.assign('/admin/queues');
      onSignedIn();
    } catch (err) {
      dropToken();
      setError({ kind: 'error', text: err.status === 401 ? 'That token was not accepted.' : err.message });
      setBusy(false);
    }
  };
  return html`<main class="signin" id="main">
    <h1>Operator console</h1>
    <div class="panel">
      <p class="muted">Sign in with OPERATOR_TOKEN or a named operator token. Other tabs of this browser share it until you sign out or close the browser.</p>
      ${error ? html`<div class=${`flash ${error.kind}`} role=${error.kind === 'error' ? 'alert' : 'status'}>${error.text}</div>` : null}
      <form onSubmit=${submit}>
        <label class="field"><span class="label-text">Operator token</span><input ref=${input} type="password" name="token" autocomplete="off" required /></label>
        <label class="check"><input type="checkbox" name="remember" /> Keep me signed in on this browser</label>
        <p><button class="primary" type="submit" disabled=${busy}>Sign in</button></p>
      </form>
    </div>
  </main>`;
}

function Shell({ route, onSignOut }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [board, setBoard] = useState(false);
  const [view, title, Page] = VIEWS.find(([id]) => id === route.view) ?? VIEWS[0];
  useEffect(() => {
    setMenuOpen(false);
    flash(null);
    document.title = `${title} · Operator console`;
  }, [route.hash]);
  useEffect(() => {
    // The queue board link only where there is a queue board (Redis).
    api('GET', '/v1/admin/stats').then(
      (s) => setBoard(Boolean(s.queues && !s.queues.error)),
      () => undefined,
    );
  }, []);
  const detail = view === 'listings' && route.rest.length === 2;
  return html`<a class="skip" href="#main" onClick=${(e) => {
    e.preventDefault();
    return document.getElementById('main')?.focus();
  }}>Skip to content</a>
    <div class="shell">
      <header class="top">
        <span class="brand">Listing service</span>
        <button type="button" class="menu" aria-expanded=${String(menuOpen)} aria-controls="console-nav" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      </header>
      <nav class=${menuOpen ? 'side open' : 'side'} id="console-nav" aria-label="Console">
        <div class="brand">Listing service</div>
        ${VIEWS.map(([id, label]) => html`<a href=${`#/${id}`} class=${id === view ? 'active' : undefined} aria-current=${id === view ? 'page' : undefined}>${label}</a>`)}
        <div class="foot">
          <a href="/admin/queues" id="board-link" hidden=${!board}>Queue board ↗</a>
          <a href="/docs/">API reference ↗</a>
          <a href="#" onClick=${(e) => {
            e.preventDefault();
            return onSignOut();
          }}>Sign out</a>
        </div>
      </nav>
      <main id="main" tabindex="-1">
        <h1>${detail ? 'Listing' : title}</h1>
        <${Flash} />
        <${ConfirmDialog} />
        <div id="view">${detail ? html`<${ListingDetail} key=${route.hash} office=${route.rest[0]} uniqueId=${route.rest[1]} />` : html`<${Page} key=${route.hash} params=${route.params} />`}</div>
      </main>
    </div>`;
}

function App() {
  const route = useRoute();
  const [state, setState] = useState({ signedIn: Boolean(token()), message: null, asked: Boolean(token()) });
  useEffect(() => {
    whenSessionEnds((text) => signOut({ kind: 'error', text }));
    whenSignedOutElsewhere(() => setState({ signedIn: false, asked: true, message: { kind: 'info', text: 'Signed out in another tab.' } }));
    if (!state.asked)
      askOpenTabs().then((found) => {
        if (found) openBoardSession();
        setState({
          signedIn: Boolean(found),
          asked: true,
          message: wantsBoard() && !found ? { kind: 'info', text: 'Sign in to open the queue board.' } : null,
        });
      });
  }, []);
  useEffect(() => {
    if (state.signedIn && wantsBoard()) openBoardSession().then(() => location.assign('/admin/queues'));
  }, [state.signedIn]);
  const signOut = (message = null) => {
    dropToken();
    closeBoardSession();
    history.replaceState(null, '', location.pathname + location.search);
    setState({ signedIn: false, asked: true, message });
  };
  if (!state.asked) return html`<p class="loading">Loading…</p>`;
  if (!state.signedIn)
    return html`<${SignIn}
      message=${state.message}
      onSignedIn=${() => {
        location.hash = '#/dashboard';
        setState({ signedIn: true, asked: true, message: null });
      }}
    />`;
  return html`<${Shell} route=${route} onSignOut=${() => signOut()} />`;
}

const root = document.getElementById('app');
root.replaceChildren();
render(html`<${App} />`, root);
