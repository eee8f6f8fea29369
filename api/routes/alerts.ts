import { queueConfirmation } from '../../db/alert-mails.js';
import {
  type AlertSubscription,
  confirmSubscription,
  deleteSubscription,
  knownTimeZone,
  requestSubscription,
  subscriptionsOfToken,
  unsubscribe,
} from '../../db/alert-subscriptions.js';
import { isBlocked } from '../../db/blocklist.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { alertLinks, confirmationMail, describeSearch } from '../../workers/alerts/alert-mail.js';
import { parseAlertSearch } from '../alert-search.js';
import { botRejection, REJECTED } from '../bot-check.js';
import { jsonBody } from '../middleware/json-body.js';
import { isUuid } from '../path-params.js';

interface AlertRequest {
  email: string;
  search: Record<string, unknown>;
  frequency: 'instant' | 'daily';
  timeZone: string;
  consent: boolean;
  turnstileToken?: string;
  website?: string;
}

const forbidden = (message: string) => new HttpError(403, message);
const noSuchToken = () => notFound('no alert has this token (it was deleted, expired or never confirmed in time)');

/** A subscription as its subscriber reads it. */
const tokenNotFound = errorResponse('No alert has this token (deleted, ended, or not confirmed within 48 hours)');

const subscriptionView = (s: AlertSubscription) => ({ ...s, description: describeSearch(s.search) });

import { answer, errorResponse, json, uuidPath } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
/**
 * Saved searches and alerts (docs/alerts.md): subscribe (double opt-in: nothing but the
 * confirmation is mailed before the address confirms), confirm, list and delete an address's
 * alerts, and unsubscribe in one click (RFC 8058). Every route but the first is authorised by the
 * token mailed to the address; the first never says whether an address has alerts.
 */
export const alertRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/alerts',
    operationId: 'subscribeAlert',
    tag: 'alerts',
    auth: 'none',
    summary: 'Save a search and ask for alerts of new listings, price drops and returns to the market',
    description:
      'Checked in this order: schema (400), consent true (400), honeypot `website` empty (403), bot challenge when TURNSTILE_SECRET is set (403), time zone (400), the search (400: the same rules as GET /v1/listings; it must name a place), address not blocked (403). Then a confirmation link is mailed to the address (double opt-in): nothing else is sent to it before it confirms, and an unconfirmed request is deleted after 48 hours. The answer is the same whether the address already has alerts or not. Rate limited per client address (ALERT_RATE_LIMIT per hour, 429); at most 3 confirmation mails to an address for requests it has not confirmed (they expire after 48 hours), and 25 alerts per address.',
    body: 'AlertRequest',
    responses: {
      202: { description: 'Accepted: a confirmation link is on its way unless the address is at a limit', content: json('AlertAccepted') },
      400: errorResponse('Invalid request, no consent, a search parameter that is wrong or not for alerts, a search without a place, or an unknown time zone'),
      403: errorResponse('Rejected (honeypot, bot challenge, blocklist)'),
      429: errorResponse('Too many alert requests from this address'),
      503: errorResponse('Database unavailable'),
    },
    handle: (deps, { validBody }) => {
      const { db, config } = deps;
      const turnstile = config.turnstileSecret ? { secret: config.turnstileSecret, verifyUrl: config.turnstileVerifyUrl } : null;
      const links = alertLinks(config);
      return [
        deps.limit('alert', config.alertRateLimit, { countUnavailable: false }),
        jsonBody('32kb'),
        async (req, res) => {
          const body = validBody<AlertRequest>(req);
          if (body.consent !== true) throw badRequest('body.consent must be true: the address is mailed about listings matching the search');
          const bot = await botRejection(turnstile, body, req.ip);
          if (bot) throw forbidden(bot);
          if (!(await knownTimeZone(db, body.timeZone)))
            throw badRequest(`body.timeZone "${body.timeZone}" is not an IANA time zone (e.g. Australia/Melbourne)`);
          const { params, columns } = await parseAlertSearch(db, body.search);
          if (await isBlocked(db, body.email)) throw forbidden(REJECTED);
          const created = await requestSubscription(db, {
            email: body.email,
            frequency: body.frequency,
            timeZone: body.timeZone,
            search: params,
            columns,
            consentIp: req.ip ?? null,
          });
          if (created) {
            const mail = confirmationMail({ email: body.email.trim(), token: created.token, search: params, frequency: body.frequency }, links);
            await queueConfirmation(db, created.id, mail);
          }
          res.status(202).json({ status: 'confirmation_sent' });
        },
      ];
    },
  },
  {
    method: 'post',
    path: '/v1/alerts/confirm',
    operationId: 'confirmAlert',
    tag: 'alerts',
    auth: 'none',
    summary: 'Confirm an alert with the token of its confirmation mail',
    description:
      'Confirming again answers the same. From now on, matching listings are mailed: instant ones within a minute, daily ones at 07:00 in the alert’s time zone.',
    body: 'AlertTokenRequest',
    responses: {
      200: answer('The alert, confirmed', 'AlertSubscription'),
      400: errorResponse('No token'),
      404: tokenNotFound,
      503: errorResponse('Database unavailable'),
    },
    handle: ({ db, config: { leadRetentionDays: retentionDays } }, { validBody }) => [
      jsonBody('4kb'),
      async (req, res) => {
        const body = validBody<{ token: string }>(req);
        const confirmed = await confirmSubscription(db, body.token, retentionDays);
        if (!confirmed) throw noSuchToken();
        res.json(subscriptionView(confirmed));
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/alerts',
    operationId: 'listAlerts',
    tag: 'alerts',
    auth: 'none',
    summary: "The alerts of the address a token belongs to (the token from any of its mails' links)",
    query: 'AlertTokenQuery',
    responses: {
      200: answer('Every alert of the address, oldest first', 'AlertSubscriptionList'),
      400: errorResponse('No token, or not one of this service’s'),
      404: tokenNotFound,
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ db, config: { leadRetentionDays: retentionDays } }, { validQuery }) =>
      async (req, res) => {
        const list = await subscriptionsOfToken(db, validQuery<{ token: string }>(req).token, retentionDays);
        if (!list) throw noSuchToken();
        res.set('Cache-Control', 'no-store').json({ data: list.map(subscriptionView) });
      },
  },
  {
    method: 'delete',
    path: '/v1/alerts/{id}',
    operationId: 'deleteAlert',
    tag: 'alerts',
    auth: 'none',
    summary: 'Delete one of the address’s alerts, with the token of any of them',
    parameters: [uuidPath('id', 'Alert id (from GET /v1/alerts)')],
    query: 'AlertTokenQuery',
    responses: {
      204: { description: 'Deleted' },
      400: errorResponse('No token, or an id that is not a UUID'),
      404: errorResponse('No such alert among those of the address the token belongs to'),
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const id = String(req.params.id);
        if (!isUuid(id)) throw badRequest('path.id must be an alert id (a UUID)');
        if (!(await deleteSubscription(db, validQuery<{ token: string }>(req).token, id)))
          throw notFound('no such alert among the ones of the address this token belongs to');
        res.status(204).end();
      },
  },
  // RFC 8058 one-click unsubscribe: a mail client POSTs "List-Unsubscribe=One-Click" to the URL of
  // the List-Unsubscribe header; the token in the URL is what counts, the body is not read.
  // RFC 8058 one-click unsubscribe: a mail client POSTs "List-Unsubscribe=One-Click" to the URL of
  // the List-Unsubscribe header; the token in the URL is what counts, the body is not read.
  {
    method: 'post',
    path: '/v1/alerts/unsubscribe',
    operationId: 'unsubscribeAlert',
    tag: 'alerts',
    auth: 'none',
    summary: 'Unsubscribe in one click (RFC 8058): the URL of the List-Unsubscribe header of every alert mail',
    description:
      'Mail clients POST `List-Unsubscribe=One-Click` here; the token in the URL decides, the body is not read. The alert is deleted with what it kept about the address.',
    query: 'AlertTokenQuery',
    responses: {
      200: {
        description: 'Unsubscribed',
        content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { const: 'unsubscribed' } } } } },
      },
      400: errorResponse('No token'),
      404: tokenNotFound,
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        if (!(await unsubscribe(db, validQuery<{ token: string }>(req).token))) throw noSuchToken();
        res.json({ status: 'unsubscribed' });
      },
  },
];
