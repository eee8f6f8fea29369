import type { LeadDelivery } from '../../db/leads.js';
import { listOffices, type OfficeSort, officeOverview } from '../../db/office-overview.js';
import { setOfficeSettings } from '../../db/office-settings.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { singleMailbox } from '../../pipeline/email-address.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeParam } from '../office-ids.js';
import { answer, errorResponse, officePath } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/**
 * Offices (behind the operator credential): GET the list of every office the service knows of,
 * sorted and paged; one office: GET what the service holds about it (lead email, lead delivery,
 * SFTP drop settings, listings by status, the keys that cover it); PUT its lead settings. Reading
 * first is how an editor shows the current value, so saving never clears what was not touched.
 */
export const adminOfficeRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/offices',
    operationId: 'adminListOffices',
    tag: 'admin',
    auth: 'operator',
    summary: 'Every office the service knows of: listings, lead email, drop settings, keys and newest feed',
    description:
      'An office is known when a listing, a feed key, a lead email or SFTP drop settings name it. Sorted by office id (default), listings or newest feed, paged with limit and offset, filtered by q.',
    query: 'AdminOfficesQuery',
    responses: { 200: answer('A page of offices and the total', 'AdminOfficePage'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await listOffices(db, validQuery<{ q?: string; sort: OfficeSort; limit: number; offset: number }>(req)));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/offices/{office}',
    operationId: 'adminGetOffice',
    tag: 'leads',
    auth: 'operator',
    summary: 'What the service holds about an office: lead email, SFTP drop settings, listings by status, the feed keys that cover it',
    parameters: [officePath],
    responses: {
      200: answer('The office', 'OfficeOverview'),
      400: errorResponse('Not an office id'),
      404: errorResponse('No listing, feed key or setting names the office'),
    },
    handle:
      ({ db }) =>
      async (req, res) => {
        const office = officeParam(req.params.office);
        const overview = await officeOverview(db, office);
        if (!overview) throw notFound(`no office ${office}: no listing, feed key or setting names it`);
        res.json(overview);
      },
  },
  {
    method: 'put',
    path: '/v1/admin/offices/{office}',
    operationId: 'adminSetOfficeLeadEmail',
    tag: 'leads',
    auth: 'operator',
    summary: "Set an office's lead settings: its lead email (null clears it) and how its leads are delivered (email, crm or both)",
    description:
      'Only the settings sent change. On crm delivery a lead is sent to the CRM (lead.created, the key’s lead API) and mailed only when no CRM acknowledged it within LEAD_CRM_WAIT_MS (15 minutes by default), or at once when no active key covers the office; on email delivery no lead.created event is raised; both (the default) mails it and raises the event. Recorded in the audit log.',
    parameters: [officePath],
    body: 'OfficeSettingsRequest',
    responses: {
      200: answer('The settings after the change', 'OfficeSettings'),
      400: errorResponse('Invalid body, or a body that sets nothing'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('8kb'),
      async (req, res) => {
        const office = officeParam(req.params.office);
        if (req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) && Object.keys(req.body).length === 0)
          throw badRequest('body must set leadEmail or leadDelivery (those left out keep their value)');
        const body = validBody<{ leadEmail?: string | null; leadDelivery?: LeadDelivery }>(req);
        const leadEmail = body.leadEmail === undefined || body.leadEmail === null ? body.leadEmail : singleMailbox(body.leadEmail);
        if (typeof body.leadEmail === 'string' && !leadEmail)
          throw badRequest('body.leadEmail must be one email address (local@domain, without a list or line breaks)');
        const saved = await setOfficeSettings(db, office, { leadEmail, leadDelivery: body.leadDelivery });
        if (body.leadEmail !== undefined) await recordAudit(db, { actor: operatorOf(res), action: 'office.lead_email', target: office });
        if (body.leadDelivery !== undefined)
          await recordAudit(db, { actor: operatorOf(res), action: 'office.lead_delivery', target: office, details: { leadDelivery: body.leadDelivery } });
        res.json({ office, ...saved });
      },
    ],
  },
];
