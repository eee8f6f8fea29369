import { Router } from 'express';
import type { Knex } from 'knex';
import { setOfficeLeadEmail } from '../../db/blocklist.js';
import { listOffices, type OfficeSort, officeOverview } from '../../db/office-overview.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { singleMailbox } from '../../pipeline/email-address.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeParam } from '../office-ids.js';
import { assertValid, assertValidQuery } from '../validators.js';

/**
 * Offices (behind the operator credential): GET the list of every office the service knows of,
 * sorted and paged; one office: GET what the service holds about it (lead email,
 * SFTP drop settings, listings by status, the keys that cover it); PUT its lead email. Reading
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
    const body = assertValid<{ leadEmail: string | null }>('OfficeSettingsRequest', req.body ?? null, 'body');
    const leadEmail = body.leadEmail === null ? null : singleMailbox(body.leadEmail);
    if (body.leadEmail !== null && !leadEmail) throw badRequest('body.leadEmail must be one email address (local@domain, without a list or line breaks)');
    await setOfficeLeadEmail(db, office, leadEmail);
    await recordAudit(db, { actor: operatorOf(res), action: 'office.lead_email', target: office });
    res.json({ office, leadEmail });
  });

  return router;
}
