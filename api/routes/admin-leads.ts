import { Router } from 'express';
import type { Knex } from 'knex';
import { alertStats, deleteBlockedSubscriptions } from '../../db/alert-subscriptions.js';
import { addBlock, COMMON_MAIL_DOMAINS, listBlocklist, normaliseBlockValue, removeBlock } from '../../db/blocklist.js';
import { leadRefusals } from '../../db/lead-refusals.js';
import { type LeadStatus, leadJobKey, listLeads, retryLead } from '../../db/leads.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { uuidParam } from '../path-params.js';
import { assertValid, assertValidQuery } from '../validators.js';

const json = jsonBody('8kb');

/** Lead review and retry, and the sender blocklist (behind the operator credential). */
export function adminLeadsRouter(deps: { db: Knex; leadQueue: JobQueue }): Router {
  const router = Router();
  const { db } = deps;

  router.get('/v1/admin/leads', async (req, res) => {
    res.json(
      await listLeads(
        db,
        assertValidQuery<{ status?: LeadStatus; sender?: string; sort?: string; limit: number; offset: number }>('AdminLeadsQuery', req.query),
      ),
    );
  });

  router.get('/v1/admin/leads/refusals', async (req, res) => {
    res.json(await leadRefusals(db, assertValidQuery<{ days: number }>('LeadRefusalsQuery', req.query).days));
  });

  router.post('/v1/admin/leads/:id/retry', async (req, res) => {
    const id = uuidParam(req.params.id, 'lead');
    const outcome = await retryLead(db, id);
    if ('missing' in outcome) throw notFound(`no lead ${id}`);
    if ('status' in outcome) throw new HttpError(409, `lead ${id} is ${outcome.status}; only failed or undeliverable (dead_letter) leads can be sent again`);
    if ('noRecipient' in outcome)
      throw new HttpError(
        409,
        `lead ${id} still has nowhere to go: no agent of the listing has an email and its office has no lead email; set the office's lead email first`,
      );
    // Should the queue be away, the sweep picks the pending lead up.
    await deps.leadQueue
      .add(leadJobKey(id, outcome.retries))
      .catch((err: Error) => req.log?.warn({ leadId: id, err: err.message }, 'lead retry queued by the sweep instead'));
    await recordAudit(db, {
      actor: operatorOf(res),
      action: 'lead.retry',
      target: id,
      details: { recipient: outcome.recipient, previousError: outcome.previousError },
    });
    res.json({ id, status: 'pending', recipient: outcome.recipient });
  });

  router.get('/v1/admin/blocklist', async (_req, res) => {
    res.json({ entries: await listBlocklist(db) });
  });

  router.post('/v1/admin/blocklist', json, async (req, res) => {
    const body = assertValid<{ kind: 'email' | 'domain'; value: string; reason?: string; force?: boolean }>('BlockRequest', req.body ?? null, 'body');
    const value = normaliseBlockValue(body.kind, body.value);
    if (body.kind === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw badRequest('body.value is not an email address');
    if (body.kind === 'domain' && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(value)) throw badRequest('body.value is not a domain name');
    if (body.kind === 'domain' && COMMON_MAIL_DOMAINS.has(value) && !body.force) {
      throw badRequest(`${value} is a widely used mail provider: blocking it blocks many genuine senders; send force: true to block it anyway`);
    }
    const outcome = await addBlock(db, { kind: body.kind, value, reason: body.reason ?? null }, body.force === true);
    if ('exists' in outcome) throw new HttpError(409, `${body.kind} ${value} is already blocked (entry ${outcome.exists.id}); send force: true to replace it`);
    // A blocked address gets no more alerts: its subscriptions go (the sender checks the blocklist too).
    const alertsDeleted = await deleteBlockedSubscriptions(db, body.kind, value);
    await recordAudit(db, {
      actor: operatorOf(res),
      action: 'blocklist.add',
      target: `${body.kind}:${value}`,
      details: { reason: body.reason ?? null, alertsDeleted },
    });
    res.json(outcome.row);
  });

  router.get('/v1/admin/alerts', async (req, res) => {
    const query = assertValidQuery<{ days: number }>('AdminAlertStatsQuery', req.query as Record<string, unknown>);
    res.json(await alertStats(db, query.days));
  });

  router.delete('/v1/admin/blocklist', json, async (req, res) => {
    const body = assertValid<{ id?: string; kind?: 'email' | 'domain'; value?: string }>('UnblockRequest', req.body ?? null, 'body');
    if (!body.id && !(body.kind && body.value)) throw badRequest('body must name the entry: id, or kind and value');
    const row = await removeBlock(db, body.id ? { id: body.id } : { kind: body.kind!, value: normaliseBlockValue(body.kind!, body.value!) });
    if (!row) throw notFound('no such blocklist entry');
    await recordAudit(db, { actor: operatorOf(res), action: 'blocklist.remove', target: `${row.kind}:${row.value}` });
    res.json({ removed: row });
  });

  return router;
}
