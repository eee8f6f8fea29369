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

export type Tag = (typeof TAGS)[number]['name'];

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
  'GET /v1/leads': ['listOwnLeads', 'leads'],
  'GET /v1/leads/{id}': ['getOwnLead', 'leads'],
  'POST /v1/leads/{id}/ack': ['acknowledgeLead', 'leads'],
  'GET /v1/feeds/stats': ['getOwnEnquiryStats', 'leads'],
  'POST /admin/session': ['openOperatorSession', 'admin'],
  'DELETE /admin/session': ['closeOperatorSession', 'admin'],
  'GET /v1/site': ['getSite', 'site'],
  'GET /v1/site/pages/{slug}': ['getSitePage', 'site'],
};

/**
 * Names and groups every operation, and states that operations without a credential need none
 * (`security: []`), so clients and linters need not guess. Throws for an operation not in OPERATIONS.
 */
export function nameOperations(paths: Record<string, Record<string, Record<string, unknown>>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      // A registered route (api/route-registry.ts) names its own operation.
      if (operation.operationId) continue;
      const entry = OPERATIONS[`${method.toUpperCase()} ${path}`];
      if (!entry) throw new Error(`the API description has no operationId for ${method.toUpperCase()} ${path} (api/openapi-operations.ts)`);
      const [operationId, tag] = entry;
      operation.operationId = operationId;
      operation.tags = [tag];
      operation.security ??= [];
    }
  }
}
