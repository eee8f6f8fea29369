import { type Response, Router } from 'express';
import type { Db } from '../../db/knex.js';
import { acknowledgeLead, type KeyLeadsQuery, keyLead, keyLeads, LeadCursorError } from '../../db/lead-feed.js';
import { enquiryStats } from '../../db/lead-stats.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { uuidParam } from '../path-params.js';
import { assertValidQuery } from '../validators.js';

/** The audit log's actor for a feed key's reads. */
const keyActor = (res: Response) => `key:${feedKeyOf(res).id}`;

/**
 * A key's leads (docs/leads.md, For the CRM): GET /v1/leads and /v1/leads/{id}, and POST
 * /v1/leads/{id}/ack. Only the key's offices' leads exist for it: another office's lead is a 404
 * like a missing one, and never listed. A revoked or suspended key reads nothing (401). Every read
 * is in the audit log against the key, with the ids of the leads it showed, and so is every
 * acknowledgement. (Not under /v1/feeds: /v1/feeds/leads/{id} and /v1/feeds/{feedId}/issues would
 * be ambiguous paths.) POST /v1/leads, the consumer's enquiry, is routes/leads.ts. GET
 * /v1/feeds/stats: the enquiry counts of the key's offices.
 */
export function feedLeadsRouter(deps: { db: Db }): Router {
  const router = Router();
  const key = requireFeedKey(deps.db, { allowSuspended: false, allowHeaderToken: true });

  router.get('/v1/leads', key, async (req, res) => {
    const query = assertValidQuery<Omit<KeyLeadsQuery, 'offices'> & { limit: number }>('FeedLeadsQuery', req.query);
    if (query.since && query.cursor) throw badRequest('query: since and cursor do not go together: the cursor carries its pull’s since');
    const { officeIds, id } = feedKeyOf(res);
    let page: Awaited<ReturnType<typeof keyLeads>>;
    try {
      page = await keyLeads(deps.db, id, { ...query, offices: officeIds });
    } catch (err) {
      if (err instanceof LeadCursorError) throw badRequest(`query.${err.message}`);
      throw err;
    }
    await recordAudit(deps.db, {
      actor: keyActor(res),
      action: 'lead.list',
      target: null,
      details: { leadIds: page.leads.map((l) => l.id), office: query.office ?? null, status: query.status ?? null, since: Boolean(query.since) },
    });
    res.json(page);
  });

  router.get('/v1/leads/:id', key, async (req, res) => {
    const id = uuidParam(req.params.id, 'lead');
    const { officeIds, id: keyId } = feedKeyOf(res);
    const lead = await keyLead(deps.db, keyId, officeIds, id);
    if (!lead) throw notFound(`no lead ${id} for this key`);
    await recordAudit(deps.db, { actor: keyActor(res), action: 'lead.read', target: id });
    res.json(lead);
  });

  router.post('/v1/leads/:id/ack', key, async (req, res) => {
    const id = uuidParam(req.params.id, 'lead');
    const { officeIds, id: keyId } = feedKeyOf(res);
    const acked = await acknowledgeLead(deps.db, keyId, officeIds, id);
    if (!acked) throw notFound(`no lead ${id} for this key`);
    await recordAudit(deps.db, { actor: keyActor(res), action: 'lead.ack', target: id, details: { already: acked.already } });
    res.json({ id, acknowledgedAt: acked.acknowledgedAt, acknowledgedByThisKey: acked.acknowledgedByThisKey, alreadyAcknowledged: acked.already });
  });

  router.get('/v1/feeds/stats', key, async (req, res) => {
    const query = assertValidQuery<{ from?: string; to?: string; office?: string; listings: number }>('FeedStatsQuery', req.query);
    const { from, to } = statsRange(query.from, query.to);
    const { officeIds } = feedKeyOf(res);
    const offices = query.office ? officeIds.filter((o) => o === query.office) : officeIds;
    res.json(await enquiryStats(deps.db, { offices, from, to, listingLimit: query.listings }));
  });

  return router;
}

const DAY_MS = 86_400_000;
/** The longest range GET /v1/feeds/stats counts: `to` at most this many days after `from`. */
const MAX_STATS_SPAN_DAYS = 366;

/** The stats' days: `to` today (UTC) unless given, `from` 29 days before `to` unless given; from <= to, at most a year and a day apart. */
function statsRange(fromDay: string | undefined, toDay: string | undefined): { from: string; to: string } {
  const to = toDay ?? new Date().toISOString().slice(0, 10);
  const from = fromDay ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
  if (span < 0) throw badRequest(`query.from (${from}) is after query.to (${to})`);
  if (span > MAX_STATS_SPAN_DAYS) throw badRequest(`query.from and query.to are ${span} days apart; at most ${MAX_STATS_SPAN_DAYS}`);
  return { from, to };
}
