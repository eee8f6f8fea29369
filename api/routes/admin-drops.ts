import { Router } from 'express';
import type { Knex } from 'knex';
import { getDropSettings, setDropSettings } from '../../db/office-drops.js';
import { recordAudit } from '../../db/operators.js';
import { badRequest } from '../../lib/errors.js';
import { isCountryCode, isCurrencyCode } from '../../pipeline/countries.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeParam } from '../office-ids.js';
import { assertValid } from '../validators.js';

interface DropSettingsRequest {
  currency?: string | null;
  country?: string | null;
  locale?: string | null;
  alertEmail?: string | null;
}

/** Per-office context of SFTP drops (behind the operator credential; docs/sftp.md). */
export function adminDropsRouter(deps: { db: Knex }): Router {
  const router = Router();

  router.get('/v1/admin/offices/:office/drop-settings', async (req, res) => {
    res.json(await getDropSettings(deps.db, officeParam(req.params.office)));
  });

  router.put('/v1/admin/offices/:office/drop-settings', jsonBody('4kb'), async (req, res) => {
    const office = officeParam(req.params.office);
    const body = assertValid<DropSettingsRequest>('DropSettingsRequest', req.body ?? null, 'body');
    const currency = body.currency?.toUpperCase() ?? null;
    const country = body.country?.toUpperCase() ?? null;
    if (currency && !isCurrencyCode(currency)) throw badRequest(`body.currency "${body.currency}" is not an ISO-4217 currency code`);
    if (country && !isCountryCode(country)) throw badRequest(`body.country "${body.country}" is not an ISO-3166 alpha-2 country code`);
    const settings = { office, currency, country, locale: body.locale ?? null, alertEmail: body.alertEmail ?? null };
    await setDropSettings(deps.db, settings);
    await recordAudit(deps.db, { actor: operatorOf(res), action: 'office.drop_settings', target: office });
    res.json(settings);
  });

  return router;
}
