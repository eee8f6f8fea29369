import type { Knex } from 'knex';
import * as createListings from './migrations/20261122000000_create_listings.js';
import * as createIngestion from './migrations/20261122010000_create_ingestion.js';
import * as listingSourceHash from './migrations/20261122020000_listing_source_hash.js';
import * as searchAndDirectory from './migrations/20261122030000_search_and_directory.js';
import * as operatorsAndSite from './migrations/20261122040000_operators_and_site.js';
import * as leads from './migrations/20261122050000_leads.js';
import * as projects from './migrations/20261122060000_projects.js';
import * as sftpDrops from './migrations/20261122070000_sftp_drops.js';
import * as lz4Compression from './migrations/20261122080000_lz4_compression.js';
import * as feedEventProgress from './migrations/20261122090000_feed_event_progress.js';
import * as publicPatch from './migrations/20261125000000_public_patch.js';
import * as projectPublicPatch from './migrations/20261125010000_project_public_patch.js';
import * as operatorSessions from './migrations/20261125020000_operator_sessions.js';
import * as sourceDisplay from './migrations/20261125030000_source_display.js';
import * as directoryOfficeNames from './migrations/20261125040000_directory_office_names.js';
import * as portalSearch from './migrations/20261125050000_portal_search.js';
import * as searchSortIndexes from './migrations/20261125060000_search_sort_indexes.js';
import * as directoryOfficeLogo from './migrations/20261125070000_directory_office_logo.js';
import * as feedOutcome from './migrations/20261125080000_feed_outcome.js';
import * as feedIdempotency from './migrations/20261125090000_feed_idempotency.js';
import * as webhooks from './migrations/20261125100000_webhooks.js';
import * as feedStartedAt from './migrations/20261125110000_feed_started_at.js';
import * as resoReplicationIndex from './migrations/20261125120000_reso_replication_index.js';
import * as consoleFigures from './migrations/20261125130000_console_figures.js';
import * as lockedStatements from './migrations/20261125140000_locked_statements.js';
import * as directoryStale from './migrations/20261125150000_directory_stale.js';
import * as openPushLock from './migrations/20261125165600_open_push_lock.js';
import * as webhookPreviousSecrets from './migrations/20261125165600_webhook_previous_secrets.js';
import * as webhookEndpointLanes from './migrations/20261125165700_webhook_endpoint_lanes.js';
import * as changeLog from './migrations/20261128100000_change_log.js';
import * as directoryModificationTimestamp from './migrations/20261128110000_directory_modification_timestamp.js';
import * as leadFeed from './migrations/20261128120000_lead_feed.js';
import * as leadDeliveryPaths from './migrations/20261128130000_lead_delivery_paths.js';
import * as listingEvents from './migrations/20261128140000_listing_events.js';
import * as resoTextIndexes from './migrations/20261128150000_reso_text_indexes.js';
import * as savedSearchAlerts from './migrations/20261128160000_saved_search_alerts.js';
import * as strongTextIndex from './migrations/20261128170000_strong_text_index.js';
import * as sequenceChangeLog from './migrations/20261128200000_sequence_change_log.js';
import * as changeLogPasses from './migrations/20261128213000_change_log_passes.js';
import * as mapNewestIndex from './migrations/20261129000000_map_newest_index.js';

/** Migrations in order; listed here so they run the same from source, from dist/ and in tests. */
const MIGRATIONS: Record<string, Knex.Migration> = {
  '20261122000000_create_listings': createListings,
  '20261122010000_create_ingestion': createIngestion,
  '20261122020000_listing_source_hash': listingSourceHash,
  '20261122030000_search_and_directory': searchAndDirectory,
  '20261122040000_operators_and_site': operatorsAndSite,
  '20261122050000_leads': leads,
  '20261122060000_projects': projects,
  '20261122070000_sftp_drops': sftpDrops,
  '20261122080000_lz4_compression': lz4Compression,
  '20261122090000_feed_event_progress': feedEventProgress,
  '20261125000000_public_patch': publicPatch,
  '20261125010000_project_public_patch': projectPublicPatch,
  '20261125020000_operator_sessions': operatorSessions,
  '20261125030000_source_display': sourceDisplay,
  '20261125040000_directory_office_names': directoryOfficeNames,
  '20261125050000_portal_search': portalSearch,
  '20261125060000_search_sort_indexes': searchSortIndexes,
  '20261125070000_directory_office_logo': directoryOfficeLogo,
  '20261125080000_feed_outcome': feedOutcome,
  '20261125090000_feed_idempotency': feedIdempotency,
  '20261125100000_webhooks': webhooks,
  '20261125110000_feed_started_at': feedStartedAt,
  '20261125120000_reso_replication_index': resoReplicationIndex,
  '20261125130000_console_figures': consoleFigures,
  '20261125140000_locked_statements': lockedStatements,
  '20261125150000_directory_stale': directoryStale,
  '20261125165600_open_push_lock': openPushLock,
  '20261125165600_webhook_previous_secrets': webhookPreviousSecrets,
  '20261125165700_webhook_endpoint_lanes': webhookEndpointLanes,
  '20261128100000_change_log': changeLog,
  '20261128110000_directory_modification_timestamp': directoryModificationTimestamp,
  '20261128120000_lead_feed': leadFeed,
  '20261128130000_lead_delivery_paths': leadDeliveryPaths,
  '20261128140000_listing_events': listingEvents,
  '20261128150000_reso_text_indexes': resoTextIndexes,
  '20261128160000_saved_search_alerts': savedSearchAlerts,
  '20261128170000_strong_text_index': strongTextIndex,
  '20261128200000_sequence_change_log': sequenceChangeLog,
  '20261128213000_change_log_passes': changeLogPasses,
  '20261129000000_map_newest_index': mapNewestIndex,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};
