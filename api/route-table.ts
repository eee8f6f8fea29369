import type { RouteSpec } from './route-registry.js';
import { adminDropRoutes } from './routes/admin-drops.js';
import { adminIngestionRoutes } from './routes/admin-ingestion.js';
import { adminLeadRoutes } from './routes/admin-leads.js';
import { adminOfficeRoutes } from './routes/admin-offices.js';
import { adminOperationRoutes } from './routes/admin-operations.js';
import { adminOperatorTokenRoutes } from './routes/admin-operator-tokens.js';
import { adminSiteRoutes } from './routes/admin-site.js';
import { alertRoutes } from './routes/alerts.js';
import { developerKeyRoutes } from './routes/developer-keys.js';
import { openApiRoutes } from './routes/docs.js';
import { feedLeadRoutes } from './routes/feed-leads.js';
import { feedRoutes } from './routes/feeds.js';
import { fxRoutes } from './routes/fx.js';
import { healthRoutes } from './routes/health.js';
import { leadRoutes } from './routes/leads.js';
import { metricsRoutes } from './routes/metrics.js';
import { operatorSessionRoutes } from './routes/operator-session.js';
import { projectRoutes } from './routes/projects.js';
import { publicReadRoutes } from './routes/public-reads.js';
import { resoRoutes } from './routes/reso.js';
import { siteRoutes } from './routes/site.js';
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

/** The public reads (no key): listings and the directory, projects, FX rates, site content. */
export const PUBLIC_READ_ROUTES: readonly RouteSpec[] = publicReadRoutes;
export const PROJECT_ROUTES: readonly RouteSpec[] = projectRoutes;
export const FX_ROUTES: readonly RouteSpec[] = fxRoutes;
export const SITE_ROUTES: readonly RouteSpec[] = siteRoutes;

/** Dry runs, key requests and a key's feeds (the feeds after the key's leads: GET /v1/feeds/stats before /v1/feeds/{feedId}). */
export const VALIDATE_ROUTES: readonly RouteSpec[] = validateRoutes;
export const FEED_ROUTES: readonly RouteSpec[] = feedRoutes;
export const DEVELOPER_KEY_ROUTES: readonly RouteSpec[] = developerKeyRoutes;

/** A consumer's enquiry (POST /v1/leads) and a key's own leads and enquiry counts. */
export const LEAD_ROUTES: readonly RouteSpec[] = leadRoutes;
export const FEED_LEAD_ROUTES: readonly RouteSpec[] = feedLeadRoutes;

/** Saved searches and their alerts (docs/alerts.md). */
export const ALERT_ROUTES: readonly RouteSpec[] = alertRoutes;

/** The RESO Web API, mounted inside resoRouter (its limit, version check, 404 and errors in OData's form). */
export const RESO_ROUTES: readonly RouteSpec[] = resoRoutes;

/** The service itself: liveness, readiness, metrics, this description, and the console's browser session. */
export const HEALTH_ROUTES: readonly RouteSpec[] = healthRoutes;
export const METRICS_ROUTES: readonly RouteSpec[] = metricsRoutes;
export const OPENAPI_ROUTES: readonly RouteSpec[] = openApiRoutes;
export const OPERATOR_SESSION_ROUTES: readonly RouteSpec[] = operatorSessionRoutes;

/** Every registered route: what the app mounts from the registry and what the API description is generated from. */
export const REGISTERED_ROUTES: readonly RouteSpec[] = [
  ...HEALTH_ROUTES,
  ...METRICS_ROUTES,
  ...PUBLIC_READ_ROUTES,
  ...PROJECT_ROUTES,
  ...RESO_ROUTES,
  ...FX_ROUTES,
  ...SITE_ROUTES,
  ...VALIDATE_ROUTES,
  ...FEED_LEAD_ROUTES,
  ...DEVELOPER_KEY_ROUTES,
  ...FEED_ROUTES,
  ...KEY_WEBHOOK_ROUTES,
  ...LEAD_ROUTES,
  ...ALERT_ROUTES,
  ...ADMIN_ROUTES,
  ...OPERATOR_SESSION_ROUTES,
  ...OPENAPI_ROUTES,
];
