import { getDropSettings, setDropSettings } from '../../db/office-drops.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest } from '../../lib/errors.js';
import { isCountryCode, isCurrencyCode } from '../../pipeline/countries.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeParam } from '../office-ids.js';

interface DropSettingsRequest {
  currency?: string | null;
  country?: string | null;
  locale?: string | null;
  alertEmail?: string | null;
}

import { errorResponse, json, officePath } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/** Per-office context of SFTP drops (behind the operator credential; docs/sftp.md). */
export const adminDropRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/offices/{office}/drop-settings',
    operationId: 'adminGetDropSettings',
    tag: 'admin',
    auth: 'operator',
    summary: "An office's context for SFTP-dropped feeds (defaults where unset)",
    parameters: [officePath],
    responses: { 200: { description: 'The settings', content: json('DropSettings') }, 400: errorResponse('Office id too long') },
    handle:
      ({ db }) =>
      async (req, res) => {
        res.json(await getDropSettings(db, officeParam(req.params.office)));
      },
  },
  {
    method: 'put',
    path: '/v1/admin/offices/{office}/drop-settings',
    operationId: 'adminSetDropSettings',
    tag: 'admin',
    auth: 'operator',
    summary: "Set an office's context for SFTP-dropped feeds: currency, country, locale, alert email",
    description: 'Applies to files claimed from now on; see docs/sftp.md.',
    parameters: [officePath],
    body: 'DropSettingsRequest',
    responses: { 200: { description: 'The settings as stored', content: json('DropSettings') }, 400: errorResponse('Invalid body') },
    handle: ({ db }, { validBody }) => [
      jsonBody('4kb'),
      async (req, res) => {
        const office = officeParam(req.params.office);
        const body = validBody<DropSettingsRequest>(req);
        const currency = body.currency?.toUpperCase() ?? null;
        const country = body.country?.toUpperCase() ?? null;
        if (currency && !isCurrencyCode(currency)) throw badRequest(`body.currency "${body.currency}" is not an ISO-4217 currency code`);
        if (country && !isCountryCode(country)) throw badRequest(`body.country "${body.country}" is not an ISO-3166 alpha-2 country code`);
        const settings = { office, currency, country, locale: body.locale ?? null, alertEmail: body.alertEmail ?? null };
        await setDropSettings(db, settings);
        await recordAudit(db, { actor: operatorOf(res), action: 'office.drop_settings', target: office });
        res.json(settings);
      },
    ],
  },
];
