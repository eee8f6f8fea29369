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
