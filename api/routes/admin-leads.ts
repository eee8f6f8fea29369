import { alertStats, deleteBlockedSubscriptions } from '../../db/alert-subscriptions.js';
import { addBlock, COMMON_MAIL_DOMAINS, listBlocklist, normaliseBlockValue, removeBlock } from '../../db/blocklist.js';
import { leadRefusals } from '../../db/lead-refusals.js';
import { type LeadStatus, leadJobKey, listLeads, retryLead } from '../../db/leads.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { answer, errorResponse, uuidPath } from '../openapi-helpers.js';
import { uuidParam } from '../path-params.js';
import type { RouteSpec } from '../route-registry.js';

/** Lead review and retry, and the sender blocklist (behind the operator credential). */
export const adminLeadRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/leads',
    operationId: 'adminListLeads',
    tag: 'leads',
    auth: 'operator',
    summary: 'Leads, newest first',
    query: 'AdminLeadsQuery',
    responses: { 200: answer('A page of leads and the total', 'AdminLeadPage'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await listLeads(db, validQuery<{ status?: LeadStatus; sender?: string; sort?: string; limit: number; offset: number }>(req)));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/leads/refusals',
    operationId: 'adminLeadRefusals',
    tag: 'leads',
    auth: 'operator',
    summary: 'Enquiries refused before they became leads (unknown listing, blocked sender, rate-limited, failed the bot check), counted per day and reason',
    query: 'LeadRefusalsQuery',
    responses: { 200: answer('The counts', 'LeadRefusals'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await leadRefusals(db, validQuery<{ days: number }>(req).days));
      },
  },
  {
    method: 'post',
    path: '/v1/admin/leads/{id}/retry',
    operationId: 'adminRetryLead',
    tag: 'leads',
    auth: 'operator',
    summary: 'Send a failed or undeliverable (dead_letter) lead again, routed afresh (failed or dead_letter -> pending)',
    description:
      'The recipient is worked out again from the listing as stored now: the first agent with one valid email, else the office lead email. A lead that had nowhere to go is sent once the office has a lead email.',
    parameters: [uuidPath('id', 'Lead id')],
    responses: {
      200: answer('Queued again', 'LeadRetried'),
      404: errorResponse('Unknown lead'),
      409: errorResponse('The lead is neither failed nor dead_letter, or it still has no recipient'),
    },
    handle:
      ({ leadQueue, db }) =>
      async (req, res) => {
        const id = uuidParam(req.params.id, 'lead');
        const outcome = await retryLead(db, id);
        if ('missing' in outcome) throw notFound(`no lead ${id}`);
        if ('status' in outcome)
          throw new HttpError(409, `lead ${id} is ${outcome.status}; only failed or undeliverable (dead_letter) leads can be sent again`);
        if ('noRecipient' in outcome)
          throw new HttpError(
            409,
            `lead ${id} still has nowhere to go: no agent of the listing has an email and its office has no lead email; set the office's lead email first`,
          );
        // Should the queue be away, the sweep picks the pending lead up.
        await leadQueue
          .add(leadJobKey(id, outcome.retries))
          .catch((err: Error) => req.log?.warn({ leadId: id, err: err.message }, 'lead retry queued by the sweep instead'));
        await recordAudit(db, {
          actor: operatorOf(res),
          action: 'lead.retry',
          target: id,
          details: { recipient: outcome.recipient, previousError: outcome.previousError },
        });
        res.json({ id, status: 'pending', recipient: outcome.recipient });
      },
  },
  {
    method: 'get',
    path: '/v1/admin/blocklist',
    operationId: 'adminListBlocklist',
    tag: 'leads',
    auth: 'operator',
    summary: 'Blocked senders',
    responses: { 200: answer('Every entry', 'Blocklist') },
    handle:
      ({ db }) =>
      async (_req, res) => {
        res.json({ entries: await listBlocklist(db) });
      },
  },
  {
    method: 'post',
    path: '/v1/admin/blocklist',
    operationId: 'adminAddBlock',
    tag: 'leads',
    auth: 'operator',
    summary: 'Block an email address or a domain (force: common mail providers, or replacing an entry)',
    body: 'BlockRequest',
    responses: { 200: answer('The entry', 'BlockEntry'), 400: errorResponse('Invalid body'), 409: errorResponse('Already blocked') },
    handle: ({ db }, { validBody }) => [
      jsonBody('8kb'),
      async (req, res) => {
        const body = validBody<{ kind: 'email' | 'domain'; value: string; reason?: string; force?: boolean }>(req);
        const value = normaliseBlockValue(body.kind, body.value);
        if (body.kind === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw badRequest('body.value is not an email address');
        if (body.kind === 'domain' && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(value)) throw badRequest('body.value is not a domain name');
        if (body.kind === 'domain' && COMMON_MAIL_DOMAINS.has(value) && !body.force) {
          throw badRequest(`${value} is a widely used mail provider: blocking it blocks many genuine senders; send force: true to block it anyway`);
        }
        const outcome = await addBlock(db, { kind: body.kind, value, reason: body.reason ?? null }, body.force === true);
        if ('exists' in outcome)
          throw new HttpError(409, `${body.kind} ${value} is already blocked (entry ${outcome.exists.id}); send force: true to replace it`);
        // A blocked address gets no more alerts: its subscriptions go (the sender checks the blocklist too).
        const alertsDeleted = await deleteBlockedSubscriptions(db, body.kind, value);
        await recordAudit(db, {
          actor: operatorOf(res),
          action: 'blocklist.add',
          target: `${body.kind}:${value}`,
          details: { reason: body.reason ?? null, alertsDeleted },
        });
        res.json(outcome.row);
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/admin/alerts',
    operationId: 'adminAlertStats',
    tag: 'alerts',
    auth: 'operator',
    summary: 'Alert figures: subscriptions now, and per day requests, confirmations, mails sent and unsubscribes',
    query: 'AdminAlertStatsQuery',
    responses: { 200: answer('The figures', 'AdminAlertStats'), 400: errorResponse('days is not a whole number from 1 to 366') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<{ days: number }>(req);
        res.json(await alertStats(db, query.days));
      },
  },
  {
    method: 'delete',
    path: '/v1/admin/blocklist',
    operationId: 'adminRemoveBlock',
    tag: 'leads',
    auth: 'operator',
    summary: 'Unblock by id, or by kind and value',
    body: 'UnblockRequest',
    responses: {
      200: answer('The entry removed', 'Unblocked'),
      400: errorResponse('Invalid body'),
      404: errorResponse('No such entry'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('8kb'),
      async (req, res) => {
        const body = validBody<{ id?: string; kind?: 'email' | 'domain'; value?: string }>(req);
        if (!body.id && !(body.kind && body.value)) throw badRequest('body must name the entry: id, or kind and value');
        const row = await removeBlock(db, body.id ? { id: body.id } : { kind: body.kind!, value: normaliseBlockValue(body.kind!, body.value!) });
        if (!row) throw notFound('no such blocklist entry');
        await recordAudit(db, { actor: operatorOf(res), action: 'blocklist.remove', target: `${row.kind}:${row.value}` });
        res.json({ removed: row });
      },
    ],
  },
];
