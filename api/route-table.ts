import type { RouteSpec } from './route-registry.js';
import { adminDropRoutes } from './routes/admin-drops.js';
import { adminIngestionRoutes } from './routes/admin-ingestion.js';
import { adminLeadRoutes } from './routes/admin-leads.js';
import { adminOfficeRoutes } from './routes/admin-offices.js';
import { adminOperationRoutes } from './routes/admin-operations.js';
import { adminOperatorTokenRoutes } from './routes/admin-operator-tokens.js';
import { adminSiteRoutes } from './routes/admin-site.js';
import { developerKeyRoutes } from './routes/developer-keys.js';
import { feedRoutes } from './routes/feeds.js';
import { validateRoutes } from './routes/validate.js';
import { adminWebhookRoutes, webhookRoutes } from './routes/webhooks.js';

/**
 * The operator API (everything under /v1/admin), mounted as one router behind the operator check
 * (adminRouter). A new admin route is added to its family's list; the order is the match order.
 */
export const ADMIN_ROUTES: readonly RouteSpec[] = [
  ...adminIngestionRoutes,
  ...adminOperationRoutes,
  ...adminSiteRoutes,
  ...adminLeadRoutes,
  ...adminOfficeRoutes,
  ...adminOperatorTokenRoutes,
  ...adminDropRoutes,
  ...adminWebhookRoutes,
];

/** A key's own webhook endpoints (everything under /v1/webhooks), one router behind the key's check. */
export const KEY_WEBHOOK_ROUTES: readonly RouteSpec[] = webhookRoutes;

/** Dry runs, key requests and a key's feeds (the feeds after the key's leads: GET /v1/feeds/stats before /v1/feeds/{feedId}). */
export const VALIDATE_ROUTES: readonly RouteSpec[] = validateRoutes;
export const FEED_ROUTES: readonly RouteSpec[] = feedRoutes;
export const DEVELOPER_KEY_ROUTES: readonly RouteSpec[] = developerKeyRoutes;

/** Every registered route: what the app mounts from the registry and what the API description is generated from. */
export const REGISTERED_ROUTES: readonly RouteSpec[] = [...VALIDATE_ROUTES, ...DEVELOPER_KEY_ROUTES, ...FEED_ROUTES, ...KEY_WEBHOOK_ROUTES, ...ADMIN_ROUTES];
