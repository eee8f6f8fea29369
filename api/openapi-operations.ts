/** The groups of the API description, in the order the docs page shows them. */
export const TAGS = [
  { name: 'ingestion', description: 'Feed keys, dry runs and feeds: how CRMs get listings in.' },
  { name: 'webhooks', description: 'Signed events when a key’s feeds end, instead of polling: endpoints, secrets and the delivery log.' },
  { name: 'reads', description: 'Public search and the agent and office directory.' },
  { name: 'reso', description: 'The public listings, agents, offices and media as a RESO Web API (OData 4.0) service, for replication.' },
  { name: 'leads', description: 'Consumer enquiries, their delivery, a key’s own leads for its CRM, the sender blocklist and office lead addresses.' },
  { name: 'alerts', description: 'Saved searches: buyers mailed new listings, price drops and returns to the market (double opt-in, one-click unsubscribe).' },
  { name: 'admin', description: 'Operators: dashboard, feed keys, feeds, quarantine, listings, SFTP drops, audit log.' },
  { name: 'site', description: 'Site settings, navigation and pages: public reads and their administration.' },
  { name: 'system', description: 'Health, readiness and this description.' },
] as const;

type Tag = (typeof TAGS)[number]['name'];

/**
 * Every operation's stable operationId (what generated clients name their methods) and its group.
 * buildOpenApi refuses to build a description with an operation missing here, so a new route
 * cannot ship unnamed.
 */
export const OPERATIONS: Record<string, [operationId: string, tag: Tag]> = {
  'GET /healthz': ['getHealth', 'system'],
  'GET /readyz': ['getReadiness', 'system'],
  'GET /metrics': ['getMetrics', 'system'],
  'GET /v1/openapi.json': ['getOpenApi', 'system'],
  'GET /v1/reso': ['getResoServiceDocument', 'reso'],
  'GET /v1/reso/$metadata': ['getResoMetadata', 'reso'],
  'GET /v1/reso/{resourcePath}': ['getResoRecords', 'reso'],
  'POST /v1/validate': ['validateFeed', 'ingestion'],
  'POST /v1/developer/keys': ['requestFeedKey', 'ingestion'],
  'GET /v1/feeds/whoami': ['whoAmI', 'ingestion'],
  'POST /v1/feeds': ['pushFeed', 'ingestion'],
  'GET /v1/feeds': ['listOwnFeeds', 'ingestion'],
  'GET /v1/feeds/{feedId}': ['getFeed', 'ingestion'],
  'GET /v1/feeds/{feedId}/issues': ['listFeedIssues', 'ingestion'],
  'GET /v1/feeds/listings/{office}/{uniqueId}': ['getOwnListing', 'ingestion'],
  'GET /v1/listings': ['searchListings', 'reads'],
  'GET /v1/listings/{office}/{uniqueId}': ['getListing', 'reads'],
  'GET /v1/listings/{office}/{uniqueId}/history': ['getListingHistory', 'reads'],
  'GET /v1/listings/{office}/{uniqueId}/calendar.ics': ['getListingCalendar', 'reads'],
  'GET /v1/offices/{office}/calendar.ics': ['getOfficeCalendar', 'reads'],
  'GET /v1/projects': ['searchProjects', 'reads'],
  'GET /v1/projects/{office}/{uniqueId}': ['getProject', 'reads'],
  'GET /v1/agents': ['listAgents', 'reads'],
  'GET /v1/agents/{id}': ['getAgent', 'reads'],
  'GET /v1/offices': ['listOffices', 'reads'],
  'GET /v1/countries': ['listCountries', 'reads'],
  'GET /v1/fx': ['getFxRates', 'reads'],
  'POST /v1/leads': ['submitLead', 'leads'],
  'POST /v1/alerts': ['subscribeAlert', 'alerts'],
  'GET /v1/alerts': ['listAlerts', 'alerts'],
  'POST /v1/alerts/confirm': ['confirmAlert', 'alerts'],
  'POST /v1/alerts/unsubscribe': ['unsubscribeAlert', 'alerts'],
  'DELETE /v1/alerts/{id}': ['deleteAlert', 'alerts'],
  'GET /v1/admin/alerts': ['adminAlertStats', 'alerts'],
  'GET /v1/leads': ['listOwnLeads', 'leads'],
  'GET /v1/leads/{id}': ['getOwnLead', 'leads'],
  'POST /v1/leads/{id}/ack': ['acknowledgeLead', 'leads'],
  'GET /v1/feeds/stats': ['getOwnEnquiryStats', 'leads'],
  'GET /v1/admin/leads': ['adminListLeads', 'leads'],
  'GET /v1/admin/leads/refusals': ['adminLeadRefusals', 'leads'],
  'POST /v1/admin/leads/{id}/retry': ['adminRetryLead', 'leads'],
  'GET /v1/admin/blocklist': ['adminListBlocklist', 'leads'],
  'POST /v1/admin/blocklist': ['adminAddBlock', 'leads'],
  'DELETE /v1/admin/blocklist': ['adminRemoveBlock', 'leads'],
  'GET /v1/admin/offices': ['adminListOffices', 'admin'],
  'GET /v1/admin/offices/{office}': ['adminGetOffice', 'leads'],
  'PUT /v1/admin/offices/{office}': ['adminSetOfficeLeadEmail', 'leads'],
  'POST /admin/session': ['openOperatorSession', 'admin'],
  'DELETE /admin/session': ['closeOperatorSession', 'admin'],
  'GET /v1/admin/stats': ['adminStats', 'admin'],
  'GET /v1/admin/keys': ['adminListKeys', 'admin'],
  'POST /v1/admin/keys': ['adminCreateKey', 'admin'],
  'PUT /v1/admin/keys/{id}': ['adminUpdateKey', 'admin'],
  'POST /v1/admin/keys/{id}/approve': ['adminApproveKey', 'admin'],
  'POST /v1/admin/keys/{id}/revoke': ['adminRevokeKey', 'admin'],
  'GET /v1/admin/quarantine': ['adminListQuarantine', 'admin'],
  'GET /v1/admin/quarantine/{id}/listings': ['adminListHeldListings', 'admin'],
  'POST /v1/admin/quarantine/{id}/resolve': ['adminResolveQuarantine', 'admin'],
  'GET /v1/admin/offices/{office}/drop-settings': ['adminGetDropSettings', 'admin'],
  'PUT /v1/admin/offices/{office}/drop-settings': ['adminSetDropSettings', 'admin'],
  'GET /v1/admin/listings': ['adminListListings', 'admin'],
  'GET /v1/admin/listings/{office}/{uniqueId}': ['adminGetListing', 'admin'],
  'GET /v1/admin/listings/{office}/{uniqueId}/review': ['adminReviewListing', 'admin'],
  'GET /v1/admin/stats/history': ['adminStatsHistory', 'admin'],
  'POST /v1/admin/listings/visibility': ['adminSetListingVisibility', 'admin'],
  'GET /v1/webhooks': ['listWebhooks', 'webhooks'],
  'POST /v1/webhooks': ['createWebhook', 'webhooks'],
  'GET /v1/webhooks/{id}': ['getWebhook', 'webhooks'],
  'PATCH /v1/webhooks/{id}': ['updateWebhook', 'webhooks'],
  'DELETE /v1/webhooks/{id}': ['deleteWebhook', 'webhooks'],
  'POST /v1/webhooks/{id}/rotate-secret': ['rotateWebhookSecret', 'webhooks'],
  'POST /v1/webhooks/{id}/test': ['testWebhook', 'webhooks'],
  'GET /v1/webhooks/{id}/deliveries': ['listWebhookDeliveries', 'webhooks'],
  'GET /v1/admin/webhooks': ['adminListWebhooks', 'admin'],
  'POST /v1/admin/webhooks': ['adminCreateWebhook', 'admin'],
  'GET /v1/admin/webhooks/{id}': ['adminGetWebhook', 'admin'],
  'PATCH /v1/admin/webhooks/{id}': ['adminUpdateWebhook', 'admin'],
  'DELETE /v1/admin/webhooks/{id}': ['adminDeleteWebhook', 'admin'],
  'POST /v1/admin/webhooks/{id}/rotate-secret': ['adminRotateWebhookSecret', 'admin'],
  'POST /v1/admin/webhooks/{id}/test': ['adminTestWebhook', 'admin'],
  'GET /v1/admin/webhooks/{id}/deliveries': ['adminListWebhookDeliveries', 'admin'],
  'GET /v1/admin/feeds': ['adminListFeeds', 'admin'],
  'GET /v1/admin/feeds/{feedId}/issues': ['adminListFeedIssues', 'admin'],
  'POST /v1/admin/feeds/{feedId}/retry': ['adminRetryFeed', 'admin'],
  'GET /v1/admin/audit': ['adminAuditLog', 'admin'],
  'GET /v1/admin/operator-tokens': ['adminListOperatorTokens', 'admin'],
  'POST /v1/admin/operator-tokens': ['adminCreateOperatorToken', 'admin'],
  'POST /v1/admin/operator-tokens/{name}/revoke': ['adminRevokeOperatorToken', 'admin'],
  'GET /v1/site': ['getSite', 'site'],
  'GET /v1/site/pages/{slug}': ['getSitePage', 'site'],
  'PUT /v1/admin/site/settings': ['adminSetSiteSetting', 'site'],
  'PUT /v1/admin/site/nav': ['adminSetNavigation', 'site'],
  'GET /v1/admin/site/pages': ['adminListPages', 'site'],
  'POST /v1/admin/site/pages': ['adminCreatePage', 'site'],
  'GET /v1/admin/site/pages/{slug}': ['adminGetPage', 'site'],
  'PUT /v1/admin/site/pages/id/{id}': ['adminUpdatePage', 'site'],
  'DELETE /v1/admin/site/pages/id/{id}': ['adminDeletePage', 'site'],
};

/**
 * Names and groups every operation, and states that operations without a credential need none
 * (`security: []`), so clients and linters need not guess. Throws for an operation not in OPERATIONS.
 */
export function nameOperations(paths: Record<string, Record<string, Record<string, unknown>>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const entry = OPERATIONS[`${method.toUpperCase()} ${path}`];
      if (!entry) throw new Error(`the API description has no operationId for ${method.toUpperCase()} ${path} (api/openapi-operations.ts)`);
      const [operationId, tag] = entry;
      operation.operationId = operationId;
      operation.tags = [tag];
      operation.security ??= [];
    }
  }
}
