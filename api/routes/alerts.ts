import { type RequestHandler, Router } from 'express';
import type { Knex } from 'knex';
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
import { type AlertLinks, confirmationMail, describeSearch } from '../../workers/alerts/alert-mail.js';
import { parseAlertSearch } from '../alert-search.js';
import { botRejection, REJECTED } from '../bot-check.js';
import { jsonBody } from '../middleware/json-body.js';
import { isUuid } from '../path-params.js';
import { assertValid, assertValidQuery } from '../validators.js';

export interface AlertsDeps {
  db: Knex;
  limit: RequestHandler;
  turnstile: { secret: string; verifyUrl: string } | null;
  links: AlertLinks;
  /** Days a confirmed alert runs (the leads' retention). */
  retentionDays: number;
}

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
const subscriptionView = (s: AlertSubscription) => ({ ...s, description: describeSearch(s.search) });

/**
 * Saved searches and alerts (docs/alerts.md): subscribe (double opt-in: nothing but the
 * confirmation is mailed before the address confirms), confirm, list and delete an address's
 * alerts, and unsubscribe in one click (RFC 8058). Every route but the first is authorised by the
 * token mailed to the address; the first never says whether an address has alerts.
 */
export function alertsRouter(deps: AlertsDeps): Router {
  const router = Router();
  const token = (req: { query: unknown }) => assertValidQuery<{ token: string }>('AlertTokenQuery', req.query as Record<string, unknown>).token;

  router.post('/v1/alerts', deps.limit, jsonBody('32kb'), async (req, res) => {
    const body = assertValid<AlertRequest>('AlertRequest', req.body ?? null, 'body');
    if (body.consent !== true) throw badRequest('body.consent must be true: the address is mailed about listings matching the search');
    const bot = await botRejection(deps.turnstile, body, req.ip);
    if (bot) throw forbidden(bot);
    if (!(await knownTimeZone(deps.db, body.timeZone)))
      throw badRequest(`body.timeZone "${body.timeZone}" is not an IANA time zone (e.g. Australia/Melbourne)`);
    const { params, columns } = await parseAlertSearch(deps.db, body.search);
    if (await isBlocked(deps.db, body.email)) throw forbidden(REJECTED);
    const created = await requestSubscription(deps.db, {
      email: body.email,
      frequency: body.frequency,
      timeZone: body.timeZone,
      search: params,
      columns,
      consentIp: req.ip ?? null,
    });
    if (created) {
      const mail = confirmationMail({ email: body.email.trim(), token: created.token, search: params, frequency: body.frequency }, deps.links);
      await queueConfirmation(deps.db, created.id, mail);
    }
    res.status(202).json({ status: 'confirmation_sent' });
  });

  router.post('/v1/alerts/confirm', jsonBody('4kb'), async (req, res) => {
    const body = assertValid<{ token: string }>('AlertTokenRequest', req.body ?? null, 'body');
    const confirmed = await confirmSubscription(deps.db, body.token, deps.retentionDays);
    if (!confirmed) throw noSuchToken();
    res.json(subscriptionView(confirmed));
  });

  router.get('/v1/alerts', async (req, res) => {
    const list = await subscriptionsOfToken(deps.db, token(req), deps.retentionDays);
    if (!list) throw noSuchToken();
    res.set('Cache-Control', 'no-store').json({ data: list.map(subscriptionView) });
  });

  router.delete('/v1/alerts/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!isUuid(id)) throw badRequest('path.id must be an alert id (a UUID)');
    if (!(await deleteSubscription(deps.db, token(req), id))) throw notFound('no such alert among the ones of the address this token belongs to');
    res.status(204).end();
  });

  // RFC 8058 one-click unsubscribe: a mail client POSTs "List-Unsubscribe=One-Click" to the URL of
  // the List-Unsubscribe header; the token in the URL is what counts, the body is not read.
  router.post('/v1/alerts/unsubscribe', async (req, res) => {
    if (!(await unsubscribe(deps.db, token(req)))) throw noSuchToken();
    res.json({ status: 'unsubscribed' });
  });
  return router;
}
