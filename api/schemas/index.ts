import {
  adminFeedsQuerySchema, adminListingsQuerySchema, auditQuerySchema, navLinkSchema, navRequestSchema, pageCreateSchema,
  pageSchema, pageUpdateSchema, siteSchema, siteSettingRequestSchema, visibilityRequestSchema,
} from './admin.js';
import { errorSchema } from './error.js';
import { adminLeadsQuerySchema, blockRequestSchema, leadAcceptedSchema, leadRequestSchema, officeSettingsRequestSchema, unblockRequestSchema } from './leads.js';
import { feedContextSchema, feedQuerySchema, feedRequestSchema } from './feed-request.js';
import { healthSchema, readinessSchema } from './health.js';
import {
  feedAcceptedSchema, feedKeySchema, feedStatusSchema, ingestionResultSchema, keyCreatedSchema, keyRequestSchema,
  quarantineItemSchema, quarantineQuerySchema, resolveRequestSchema, whoAmISchema, dropSettingsRequestSchema, dropSettingsSchema,
} from './ingestion.js';
import { projectSchemas } from '../../pipeline/project/project-schema.js';
import {
  agentPageSchema, countriesSchema, directoryQuerySchema, fxRatesSchema, listingPageSchema, listingSearchQuerySchema, officePageSchema,
  projectPageSchema, projectSearchQuerySchema, projectWithListingsSchema,
} from './public-reads.js';
import { issueSchema, validationResultSchema } from './validation-result.js';

/** Every named schema: registered with ajv and published as OpenAPI components. */
export const schemas = [
  errorSchema, feedContextSchema, feedRequestSchema, feedQuerySchema, issueSchema, validationResultSchema, healthSchema, readinessSchema,
  keyRequestSchema, keyCreatedSchema, whoAmISchema, feedKeySchema, ingestionResultSchema, feedAcceptedSchema, feedStatusSchema,
  quarantineItemSchema, resolveRequestSchema, quarantineQuerySchema, dropSettingsRequestSchema, dropSettingsSchema,
  listingSearchQuerySchema, directoryQuerySchema, listingPageSchema, agentPageSchema, officePageSchema, countriesSchema, fxRatesSchema,
  projectSearchQuerySchema, projectPageSchema, projectWithListingsSchema, ...projectSchemas,
  adminListingsQuerySchema, adminFeedsQuerySchema, auditQuerySchema, visibilityRequestSchema, siteSettingRequestSchema,
  navLinkSchema, navRequestSchema, pageCreateSchema, pageUpdateSchema, pageSchema, siteSchema,
  leadRequestSchema, leadAcceptedSchema, adminLeadsQuerySchema, blockRequestSchema, unblockRequestSchema, officeSettingsRequestSchema,
];
