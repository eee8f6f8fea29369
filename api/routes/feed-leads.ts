import type { Response } from 'express';
import { acknowledgeLead, type KeyLeadsQuery, keyLead, keyLeads, LeadCursorError } from '../../db/lead-feed.js';
import { enquiryStats } from '../../db/lead-stats.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { feedKeyOf } from '../auth/feed-key.js';
import { uuidParam } from '../path-params.js';

/** The audit log's actor for a feed key's reads. */
const keyActor = (res: Response) => `key:${feedKeyOf(res).id}`;

import { answer, errorResponse, uuidPath } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/**
 * A key's leads (docs/leads.md, For the CRM): GET /v1/leads and /v1/leads/{id}, and POST
 * /v1/leads/{id}/ack. Only the key's offices' leads exist for it: another office's lead is a 404
 * like a missing one, and never listed. A revoked or suspended key reads nothing (401). Every read
 * is in the audit log against the key, with the ids of the leads it showed, and so is every
 * acknowledgement. (Not under /v1/feeds: /v1/feeds/leads/{id} and /v1/feeds/{feedId}/issues would
 * be ambiguous paths.) POST /v1/leads, the consumer's enquiry, is routes/leads.ts. GET
 * /v1/feeds/stats: the enquiry counts of the key's offices.
 */
/** The answers of a route about one of the key's leads, beside its own 200. */
const oneLeadResponses = (ok: ReturnType<typeof answer>) => ({
  200: ok,
  401: errorResponse('Feed key missing, unknown, revoked or suspended'),
  404: errorResponse("No such lead among this key's offices (or it was purged)"),
  503: errorResponse('Database unavailable'),
});

export const feedLeadRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/leads',
    operationId: 'listOwnLeads',
    tag: 'leads',
    auth: 'feedKeyOrHeader',
    summary: "This key's offices' leads, newest first, with a since cursor for incremental pulls",
    description:
      'Only leads about listings of the key’s offices; purged leads are gone. Each answer is read in one database snapshot and gives it back as `since`: the next pull with `since` gets exactly the leads committed after it (a lead whose transaction committed late included), so pulls see each lead once. Page on with `cursor` (the `next` of the page before): the pages of one pull stay in its snapshot. Every read is recorded in the audit log against the key, with the ids of the leads shown (docs/security.md).',
    query: 'FeedLeadsQuery',
    responses: {
      200: answer('A page of leads, the cursor of the next page, and where the next pull starts', 'FeedLeadPage'),
      400: errorResponse('Invalid query, or a since or cursor this API did not give'),
      401: errorResponse('Feed key missing, unknown, revoked or suspended'),
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<Omit<KeyLeadsQuery, 'offices'> & { limit: number }>(req);
        if (query.since && query.cursor) throw badRequest('query: since and cursor do not go together: the cursor carries its pull’s since');
        const { officeIds, id } = feedKeyOf(res);
        let page: Awaited<ReturnType<typeof keyLeads>>;
        try {
          page = await keyLeads(db, id, { ...query, offices: officeIds });
        } catch (err) {
          if (err instanceof LeadCursorError) throw badRequest(`query.${err.message}`);
          throw err;
        }
        await recordAudit(db, {
          actor: keyActor(res),
          action: 'lead.list',
          target: null,
          details: { leadIds: page.leads.map((l) => l.id), office: query.office ?? null, status: query.status ?? null, since: Boolean(query.since) },
        });
        res.json(page);
      },
  },
  {
    method: 'get',
    path: '/v1/leads/{id}',
    operationId: 'getOwnLead',
    tag: 'leads',
    auth: 'feedKeyOrHeader',
    summary: 'One lead in full: contact, listing, consent, created time and its delivery on each path',
    description:
      'The consumer’s name, email, phone and message; the listing’s office, uniqueId and headline; its mail delivery and its lead.created event to each of this key’s endpoints. Another office’s lead is a 404 like a missing one, as is a purged lead. The read is recorded in the audit log against the key.',
    parameters: [uuidPath('id', 'Lead id')],
    responses: oneLeadResponses(answer('The lead', 'FeedLead')),
    handle:
      ({ db }) =>
      async (req, res) => {
        const id = uuidParam(req.params.id, 'lead');
        const { officeIds, id: keyId } = feedKeyOf(res);
        const lead = await keyLead(db, keyId, officeIds, id);
        if (!lead) throw notFound(`no lead ${id} for this key`);
        await recordAudit(db, { actor: keyActor(res), action: 'lead.read', target: id });
        res.json(lead);
      },
  },
  {
    method: 'post',
    path: '/v1/leads/{id}/ack',
    operationId: 'acknowledgeLead',
    tag: 'leads',
    auth: 'feedKeyOrHeader',
    summary: 'Acknowledge a lead: the CRM has it',
    description:
      'The first acknowledgement is kept (when, and whether this key made it); acknowledging again answers it with alreadyAcknowledged true. Shown in the lead’s delivery.crm. Another office’s lead, or a purged one, is a 404. Recorded in the audit log against the key.',
    parameters: [uuidPath('id', 'Lead id')],
    responses: oneLeadResponses(answer('The acknowledgement', 'FeedLeadAck')),
    handle:
      ({ db }) =>
      async (req, res) => {
        const id = uuidParam(req.params.id, 'lead');
        const { officeIds, id: keyId } = feedKeyOf(res);
        const acked = await acknowledgeLead(db, keyId, officeIds, id);
        if (!acked) throw notFound(`no lead ${id} for this key`);
        await recordAudit(db, { actor: keyActor(res), action: 'lead.ack', target: id, details: { already: acked.already } });
        res.json({ id, acknowledgedAt: acked.acknowledgedAt, acknowledgedByThisKey: acked.acknowledgedByThisKey, alreadyAcknowledged: acked.already });
      },
  },
  {
    method: 'get',
    path: '/v1/feeds/stats',
    operationId: 'getOwnEnquiryStats',
    tag: 'leads',
    auth: 'feedKeyOrHeader',
    summary: "Enquiry counts per day for this key's offices, per office and per listing",
    description:
      'Every lead consumers sent about the key’s offices’ listings between two UTC days (inclusive; the last 30 days by default, at most 367 days), whatever became of its delivery. Per office every day of the range, zeros included; per listing the days it had enquiries, the busiest listings first. Another office named in `office` has none.',
    query: 'FeedStatsQuery',
    responses: {
      200: answer('The counts', 'EnquiryStats'),
      400: errorResponse('Invalid query: a day that is not YYYY-MM-DD, from after to, or a range over 367 days'),
      401: errorResponse('Feed key missing, unknown, revoked or suspended'),
      503: errorResponse('Database unavailable'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<{ from?: string; to?: string; office?: string; listings: number }>(req);
        const { from, to } = statsRange(query.from, query.to);
        const { officeIds } = feedKeyOf(res);
        const offices = query.office ? officeIds.filter((o) => o === query.office) : officeIds;
        res.json(await enquiryStats(db, { offices, from, to, listingLimit: query.listings }));
      },
  },
];

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
