import express, { type Response, Router } from 'express';
import {
  type AlertSubscription,
  confirmSubscription,
  deleteSubscription,
  subscriptionOfToken,
  subscriptionsOfToken,
  unsubscribe,
} from '../../db/alert-subscriptions.js';
import { escapeHtml } from '../../lib/html.js';
import { describeSearch } from '../../workers/alerts/alert-mail.js';
import { isUuid } from '../path-params.js';
import type { RouteDeps } from '../route-deps.js';

/**
 * The pages the links in alert mails open (docs/alerts.md, Links): confirm, unsubscribe and the
 * address's alerts. Opening a link changes nothing (mail scanners open links to check them); each
 * page's button posts the form that does. Authorised by the token in the link, nothing else.
 */

const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 5 });

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .set('Referrer-Policy', 'no-referrer')
    .type('html')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}
button{font:inherit;padding:.5rem 1rem;border-radius:.4rem;border:1px solid #1f5fbf;background:#1f5fbf;color:#fff;cursor:pointer}
button.quiet{background:#fff;color:#a11}li{margin:.75rem 0}.muted{color:#555}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`);
}

const tokenOf = (value: unknown): string | null => (typeof value === 'string' && value.length >= 10 && value.length <= 200 ? value : null);
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const gone = (res: Response) =>
  page(res, 404, 'This link no longer works', '<p>The alert it was for has been deleted, has ended, or was not confirmed within two days.</p>');
const badLink = (res: Response) => page(res, 400, 'This link is incomplete', '<p>Open the link from the mail again, whole.</p>');

/** The address's alerts, each with its Delete button. */
function manageBody(list: AlertSubscription[], token: string): string {
  if (list.length === 0) return '<p>No alerts left.</p>';
  const when = (s: AlertSubscription) =>
    s.status === 'pending'
      ? 'waiting for confirmation'
      : `${s.frequency === 'daily' ? 'daily' : 'as they come up'}, until ${escapeHtml((s.endsAt ?? '').slice(0, 10))}`;
  const items = list.map(
    (s) => `<li><strong>${escapeHtml(describeSearch(s.search))}</strong><br><span class="muted">${when(s)}</span>
<form method="post" action="manage/delete">${hidden('token', token)}${hidden('id', s.id)}<button class="quiet" type="submit">Delete</button></form></li>`,
  );
  return `<p>Alerts mailed to ${escapeHtml(list[0].email)}:</p><ul>${items.join('')}</ul>`;
}

export function alertPagesRouter({ db, config }: Pick<RouteDeps, 'db' | 'config'>): Router {
  const router = Router();
  const deps = { db, retentionDays: config.leadRetentionDays };

  router.get('/alerts/confirm', async (req, res) => {
    const token = tokenOf(req.query.token);
    if (!token) return badLink(res);
    const sub = await subscriptionOfToken(deps.db, token, deps.retentionDays);
    if (!sub) return gone(res);
    if (sub.status === 'confirmed') return page(res, 200, 'Your alert is on', `<p>${escapeHtml(describeSearch(sub.search))}</p>`);
    page(
      res,
      200,
      'Confirm your alert',
      `<p>Listings matching <strong>${escapeHtml(describeSearch(sub.search))}</strong> will be mailed to ${escapeHtml(sub.email)} ${sub.frequency === 'daily' ? 'once a day' : 'as they come up'}.</p>
<form method="post" action="confirm">${hidden('token', token)}<button type="submit">Confirm</button></form>`,
    );
  });

  router.post('/alerts/confirm', form, async (req, res) => {
    const token = tokenOf(req.body?.token);
    if (!token) return badLink(res);
    const sub = await confirmSubscription(deps.db, token, deps.retentionDays);
    if (!sub) return gone(res);
    page(
      res,
      200,
      'Your alert is on',
      `<p>Listings matching <strong>${escapeHtml(describeSearch(sub.search))}</strong> will be mailed to ${escapeHtml(sub.email)}.</p>
<p class="muted">Every alert mail has a link to unsubscribe. It runs until ${escapeHtml((sub.endsAt ?? '').slice(0, 10))}.</p>
<p><a href="manage?token=${encodeURIComponent(token)}">Your alerts</a></p>`,
    );
  });

  router.get('/alerts/unsubscribe', async (req, res) => {
    const token = tokenOf(req.query.token);
    if (!token) return badLink(res);
    const sub = await subscriptionOfToken(deps.db, token, deps.retentionDays);
    if (!sub) return page(res, 200, 'You are unsubscribed', '<p>This alert is not sent any more.</p>');
    page(
      res,
      200,
      'Unsubscribe',
      `<p>Stop mailing listings matching <strong>${escapeHtml(describeSearch(sub.search))}</strong> to ${escapeHtml(sub.email)}?</p>
<form method="post" action="unsubscribe">${hidden('token', token)}<button type="submit">Unsubscribe</button></form>
<p><a href="manage?token=${encodeURIComponent(token)}">All your alerts</a></p>`,
    );
  });

  router.post('/alerts/unsubscribe', form, async (req, res) => {
    const token = tokenOf(req.body?.token);
    if (!token) return badLink(res);
    await unsubscribe(deps.db, token);
    page(res, 200, 'You are unsubscribed', '<p>This alert is not sent any more, and what it kept about you is deleted.</p>');
  });

  router.get('/alerts/manage', async (req, res) => {
    const token = tokenOf(req.query.token);
    if (!token) return badLink(res);
    const list = await subscriptionsOfToken(deps.db, token, deps.retentionDays);
    if (!list) return gone(res);
    page(res, 200, 'Your alerts', manageBody(list, token));
  });

  router.post('/alerts/manage/delete', form, async (req, res) => {
    const token = tokenOf(req.body?.token);
    const id = typeof req.body?.id === 'string' ? req.body.id : '';
    if (!token || !isUuid(id)) return badLink(res);
    await deleteSubscription(deps.db, token, id);
    // The token may have been the deleted alert's own: then the list is reached by no link left.
    const left = await subscriptionsOfToken(deps.db, token, deps.retentionDays);
    if (!left) return page(res, 200, 'Your alerts', '<p>Deleted. No alert is left under this link.</p>');
    res.redirect(303, `../manage?token=${encodeURIComponent(token)}`);
  });
  return router;
}
