import { Router } from 'express';
import type { Knex } from 'knex';
import type { LeadDelivery } from '../../db/leads.js';
import { listOffices, type OfficeSort, officeOverview } from '../../db/office-overview.js';
import { setOfficeSettings } from '../../db/office-settings.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { singleMailbox } from '../../pipeline/email-address.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeParam } from '../office-ids.js';
import { assertValid, assertValidQuery } from '../validators.js';

/**
 * Offices (behind the operator credential): GET the list of every office the service knows of,
 * sorted and paged; one office: GET what the service holds about it (lead email, lead delivery,
 * SFTP drop settings, listings by status, the keys that cover it); PUT its lead settings. Reading
 * first is how an editor shows the current value, so saving never clears what was not touched.
 */
export function adminOfficesRouter(deps: { db: Knex }): Router {
  const router = Router();
  const { db } = deps;

  router.get('/v1/admin/offices', async (req, res) => {
    res.json(await listOffices(db, assertValidQuery<{ q?: string; sort: OfficeSort; limit: number; offset: number }>('AdminOfficesQuery', req.query)));
  });

  router.get('/v1/admin/offices/:office', async (req, res) => {
    const office = officeParam(req.params.office);
    const overview = await officeOverview(db, office);
    if (!overview) throw notFound(`no office ${office}: no listing, feed key or setting names it`);
    res.json(overview);
  });

  router.put('/v1/admin/offices/:office', jsonBody('8kb'), async (req, res) => {
    const office = officeParam(req.params.office);
    if (req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) && Object.keys(req.body).length === 0)
      throw badRequest('body must set leadEmail or leadDelivery (those left out keep their value)');
    const body = assertValid<{ leadEmail?: string | null; leadDelivery?: LeadDelivery }>('OfficeSettingsRequest', req.body ?? null, 'body');
    const leadEmail = body.leadEmail === undefined || body.leadEmail === null ? body.leadEmail : singleMailbox(body.leadEmail);
    if (typeof body.leadEmail === 'string' && !leadEmail)
      throw badRequest('body.leadEmail must be one email address (local@domain, without a list or line breaks)');
    const saved = await setOfficeSettings(db, office, { leadEmail, leadDelivery: body.leadDelivery });
    if (body.leadEmail !== undefined) await recordAudit(db, { actor: operatorOf(res), action: 'office.lead_email', target: office });
    if (body.leadDelivery !== undefined)
      await recordAudit(db, { actor: operatorOf(res), action: 'office.lead_delivery', target: office, details: { leadDelivery: body.leadDelivery } });
    res.json({ office, ...saved });
  });

  return router;
}
