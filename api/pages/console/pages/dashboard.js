// The dashboard: what needs a look first (feeds that failed, were not well formed, had invalid
// listings or tripped the breaker), the figures at a glance, queues, and charts of the last two
// weeks from what the service keeps. Refreshes every 10 seconds.
import { useEffect } from 'preact/hooks';
import { api } from '../lib/api.js';
import { words } from '../lib/format.js';
import { html } from '../lib/html.js';
import { TimeChart } from '../ui/chart.js';
import { useLoad } from '../ui/use-load.js';

const Card = ({ label, figure, detail }) =>
  html`<div class="card"><div class="label">${label}</div><div class="figure">${figure}</div><div class="detail">${detail ?? ''}</div></div>`;
const statusLine = (map) =>
  Object.entries(map ?? {})
    .map(([k, v]) => `${words(k)} ${v}`)
    .join(' · ') || 'none';
const queueLine = (q) => (q ? `waiting ${q.waiting} · active ${q.active} · delayed ${q.delayed} · failed ${q.failed}` : '');
const FEED_OUTCOMES = ['ok', 'with_invalid', 'not_well_formed', 'tripped', 'failed', 'rejected'];
const LEAD_OUTCOMES = ['delivered', 'failed', 'dead_letter', 'pending'];

const ALERT_SERIES = [
  ['subscribed', 'requests'],
  ['confirmed', 'confirmed'],
  ['sent', 'mails sent'],
  ['unsubscribed', 'unsubscribed'],
];

function Charts({ history, alerts }) {
  const x = history.days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
  const depth = history.queueDepth;
  return html`<div class="charts">
    <${TimeChart} id="chart-feeds" title="Feeds per day by outcome" x=${x} series=${FEED_OUTCOMES.map((o) => ({ label: words(o), values: history.days.map((d) => d.feeds[o] ?? 0) }))} />
    <${TimeChart} id="chart-applied" title="Listings applied per day" x=${x} series=${[{ label: 'applied', values: history.days.map((d) => d.listingsApplied) }]} />
    <${TimeChart} id="chart-invalid" title="Invalid listings per day (% of those read)" x=${x} series=${[{ label: 'invalid %', values: history.days.map((d) => d.invalidPercent) }]} />
    <${TimeChart} id="chart-leads" title="Lead deliveries per day by outcome" x=${x} series=${LEAD_OUTCOMES.map((o) => ({ label: words(o), values: history.days.map((d) => d.leads[o] ?? 0) }))} />
    ${
      alerts
        ? html`<${TimeChart}
          id="chart-alerts"
          title="Saved-search alerts per day"
          x=${alerts.days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000)}
          series=${ALERT_SERIES.map(([key, label]) => ({ label, values: alerts.days.map((d) => d[key]) }))}
        />`
        : null
    }
    ${
      depth.length
        ? html`<${TimeChart}
          id="chart-queues"
          minutes=${true}
          title="Queue depth (waiting jobs), sampled each minute"
          x=${depth.map((s) => Date.parse(s.at) / 1000)}
          series=${[
            { label: 'ingest', values: depth.map((s) => s.ingest) },
            { label: 'lead delivery', values: depth.map((s) => s.leadDelivery) },
            { label: 'webhook delivery', values: depth.map((s) => s.webhookDelivery) },
          ]}
        />`
        : null
    }
  </div>`;
}

export function Dashboard() {
  const { data: s, reload } = useLoad(() => api('GET', '/v1/admin/stats'), []);
  const { data: history, reload: reloadHistory } = useLoad(() => api('GET', '/v1/admin/stats/history?days=14'), []);
  const { data: alerts, reload: reloadAlerts } = useLoad(() => api('GET', '/v1/admin/alerts?days=14'), []);
  useEffect(() => {
    const timer = setInterval(() => {
      reload();
      reloadHistory();
      reloadAlerts();
    }, 10_000);
    return () => clearInterval(timer);
  }, []);
  if (!s) return html`<p class="muted">Loading…</p>`;
  const problems = s.feeds.last24h.problems;
  return html`<div class="cards">
      <${Card} label="Listings" figure=${s.listings.total} detail=${`${s.listings.public} public · ${s.listings.hidden} hidden · ${s.listings.archived} archived`} />
      <${Card} label="Directory" figure=${`${s.directory.agents} / ${s.directory.offices}`} detail="agents / offices" />
      <a class=${`card link${problems ? ' alert' : ''}`} href="#/feeds?problems=24h" id="problem-feeds">
        <div class="label">Feeds needing a look</div>
        <div class="figure">${problems}</div>
        <div class="detail">of ${s.feeds.last24h.total} in 24 h · ${s.feeds.last7d.problems} of ${s.feeds.last7d.total} in 7 days</div>
      </a>
      <${Card} label="Quarantine" figure=${s.quarantine.open} detail="open circuit-breaker trips" />
      <${Card} label="Feed keys" figure=${s.feedKeys.active} detail=${`active · ${s.feedKeys.suspended} waiting for approval`} />
      <${Card} label="Blocklist" figure=${s.blocklist.entries} detail="senders blocked" />
      ${
        alerts
          ? html`<${Card}
            label="Alerts"
            figure=${alerts.subscriptions.confirmed}
            detail=${`${alerts.subscriptions.instant} instant · ${alerts.subscriptions.daily} daily · ${alerts.subscriptions.pending} waiting for confirmation`}
          />`
          : null
      }
    </div>
    <h2>Listings by status</h2>
    <div class="panel">${statusLine(s.listings.byStatus)}</div>
    <h2>Leads by status</h2>
    <div class="panel">${statusLine(s.leads)}</div>
    <h2>Queues</h2>
    <div class="panel">
      ${
        s.queues
          ? s.queues.error
            ? html`<span class="muted">Queue depths unavailable: ${s.queues.error}</span>`
            : html`<div>
              <div><strong>ingest: </strong>${queueLine(s.queues.ingest)}</div>
              <div><strong>lead delivery: </strong>${queueLine(s.queues.leadDelivery)}</div>
              ${s.queues.webhookDelivery ? html`<div><strong>webhook delivery: </strong>${queueLine(s.queues.webhookDelivery)}</div>` : null}
            </div>`
          : html`<span class="muted">In-process queue (no REDIS_URL): no queue board.</span>`
      }
    </div>
    <h2>The last two weeks</h2>
    ${history ? html`<${Charts} history=${history} alerts=${alerts} />` : html`<p class="muted">Loading charts…</p>`}
    <p class="muted">Updated ${new Date().toLocaleTimeString()}; refreshes every 10 seconds.</p>`;
}
