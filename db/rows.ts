/**
 * The rows of the tables as the drivers (pg, PGlite) give them, one type per table family
 * (columns as the migrations make them): the data-access modules map these into the objects they
 * answer, and a query selecting some columns reads `Pick<Row.X, …>`. Timestamps arrive as Date;
 * int8 and numeric as text (pg; read with Number()); jsonb parsed; arrays as arrays.
 *
 * import type * as Row from './rows.js' — then Row.Listing, Row.FeedEvent, …
 */
import type { FeedOutcome } from '../lib/feed-outcome.js';
import type { CanonicalListing, CanonicalProject, FeedFormat, Issue } from '../pipeline/types.js';

// The columns' values: the modules of each family re-export these (rows.ts imports no db module,
// so every module may import it).

export type FeedStatus = 'queued' | 'running' | 'done' | 'failed' | 'rejected';

/** A running feed's counts so far. */
export interface FeedProgress {
  parsed: number;
  applied: number;
  invalid: number;
}

export type KeyStatus = 'suspended' | 'active' | 'revoked';

/**
 * A lead's email path: pending, sending, delivered, failed (given up; an operator may retry),
 * dead_letter (nowhere to send it), purged (contact erased after the retention time), and on CRM
 * delivery awaiting_crm (the mail waits for a CRM's acknowledgement until its fallback time) and
 * crm_acknowledged (a CRM acknowledged it: no mail needed).
 */
export const LEAD_STATUSES = ['pending', 'sending', 'delivered', 'failed', 'purged', 'dead_letter', 'awaiting_crm', 'crm_acknowledged'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/**
 * How an office's leads are delivered: by email to the agent or office; to the CRM (lead.created
 * and the key's lead API), mailed only when no CRM acknowledged it in time; or both at once.
 */
export const LEAD_DELIVERY_MODES = ['email', 'crm', 'both'] as const;
export type LeadDelivery = (typeof LEAD_DELIVERY_MODES)[number];

/** What the consumer sent with a lead (leads.contact; `{ erased: true }` once purged). */
export interface LeadContact {
  email: string;
  message: string;
  name?: string;
  phone?: string;
}

/** int8, numeric and count(*) columns: text from pg, a number from PGlite or a ::int cast. */
export type Int8 = string | number;

/** listings (and listing_events: a listing's open homes and auctions). */
export interface Listing {
  listing_key: string;
  office: string;
  unique_id: string;
  format: FeedFormat;
  status: string;
  mod_time: Date;
  content_hash: string;
  hidden: boolean;
  data: CanonicalListing;
  created_at: Date;
  updated_at: Date;
  source_hash: string | null;
  project_key: string | null;
  public_patch: Record<string, unknown> | null;
  is_shown: boolean | null;
  is_public: boolean | null;
}

export interface ListingEvent {
  listing_key: string;
  seq: number;
  office: string;
  kind: 'auction' | 'open_home';
  starts_at: Date;
  ends_at: Date;
  zone: string;
}

/** projects. */
export interface Project {
  project_key: string;
  office: string;
  unique_id: string;
  status: string;
  data: CanonicalProject;
  created_at: Date;
  updated_at: Date;
}

/** feed_events.result as stored (an ingestion's result, or what a failed read found): the members the reads pick out. */
export interface StoredFeedResult {
  ok?: boolean;
  counts?: Record<string, number>;
  summary?: Record<string, number>;
  reconcile?: { status: string; [member: string]: unknown };
  issues?: Issue[];
  [member: string]: unknown;
}

/** feed_events: one pushed or dropped feed, its life cycle and result. */
export interface FeedEvent {
  id: string;
  source: 'api' | 'sftp';
  key_id: string | null;
  office_scope: string[];
  alert_email: string | null;
  format: FeedFormat;
  mode: 'full' | 'incremental';
  context: Record<string, unknown>;
  body_kind: 'text' | 'bytes';
  body_bytes: Int8;
  body_sha256: string;
  status: FeedStatus;
  /** Generated from status and result (lib/feed-outcome.ts). */
  outcome: FeedOutcome;
  attempts: number;
  result: StoredFeedResult | null;
  error: string | null;
  error_detail: string | null;
  progress: FeedProgress | null;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  body_purged_at: Date | null;
}

/** change_log: every change of a listing or project, numbered (seq) once committed. */
export interface ChangeLog {
  id: Int8;
  seq: Int8 | null;
  resource: string;
  record_key: string;
  office: string | null;
  kind: string;
  old_status: string | null;
  new_status: string | null;
  old_price: Record<string, unknown> | null;
  new_price: Record<string, unknown> | null;
  sold_price: Record<string, unknown> | null;
  public_before: boolean;
  public_after: boolean;
  source: string | null;
  changed_at: Date;
  sequenced_at: Date | null;
}

/** feed_keys. */
export interface FeedKey {
  id: string;
  key_hash: string;
  client_name: string;
  alert_email: string;
  office_ids: string[];
  status: KeyStatus;
  created_at: Date;
  approved_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** leads. */
export interface Lead {
  id: string;
  status: LeadStatus;
  listing_key: string;
  office: string;
  unique_id: string;
  contact: LeadContact;
  recipient: string | null;
  recipient_source: string | null;
  attempts: number;
  retries: number;
  last_error: string | null;
  delivery: LeadDelivery;
  created_at: Date;
  updated_at: Date;
  sending_at: Date | null;
  delivered_at: Date | null;
  purged_at: Date | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  fallback_at: Date | null;
  fell_back_at: Date | null;
}

/** webhook_endpoints. */
export interface WebhookEndpoint {
  id: string;
  key_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  status: 'active' | 'disabled';
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** webhook_deliveries. */
export interface WebhookDelivery {
  id: string;
  seq: Int8;
  endpoint_id: string;
  event_type: string;
  feed_id: string | null;
  lead_id: string | null;
  payload: string;
  status: 'pending' | 'delivered' | 'abandoned';
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

/** quarantine_items: a full feed's archive the circuit breaker held. */
export interface QuarantineItem {
  id: string;
  feed_id: string;
  office: string;
  archive_count: number;
  active_count: number;
  keys: string[];
  project_keys: string[] | null;
  created_at: Date;
  resolved_at: Date | null;
  resolution: 'reviewed' | 'applied' | null;
  applied_count: number | null;
}

/** site_pages and site_settings. */
export interface SitePage {
  id: string;
  slug: string;
  title: Record<string, string>;
  body: Record<string, string>;
  description: Record<string, string> | null;
  published: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface SiteSetting {
  key: string;
  value: Record<string, unknown>;
  updated_at: Date;
}

/** sftp_files: a dropped file claimed and stored as a feed. */
export interface SftpFile {
  office: string;
  sha256: string;
  file_name: string;
  claim_name: string;
  feed_id: string;
  status: string;
  outcome: string | null;
  created_at: Date;
  moved_at: Date | null;
}

/** operator_tokens and audit_log. */
export interface OperatorToken {
  id: string;
  name: string;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface AuditEntry {
  id: Int8;
  at: Date;
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
}

/** blocklist: lead senders refused. */
export interface BlocklistEntry {
  id: string;
  kind: 'email' | 'domain';
  value: string;
  reason: string | null;
  created_at: Date;
}

/** queue_depth_samples: the dashboard's queue history. */
export interface QueueDepthSample {
  at: Date;
  ingest: number;
  lead_delivery: number;
  webhook_delivery: number;
}

/** office_settings. */
export interface OfficeSettings {
  office: string;
  lead_email: string | null;
  lead_delivery: LeadDelivery;
  updated_at: Date;
}

/** A `count(*)` grouped by a status column. */
export interface StatusCount<S extends string = string> {
  status: S;
  n: Int8;
}
