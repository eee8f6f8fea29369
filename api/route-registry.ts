import { type RequestHandler, Router } from 'express';
import { requireFeedKey } from './auth/feed-key.js';
import { json, operatorErrors, operatorSecurity, queryParameters } from './openapi-helpers.js';
import type { Tag } from './openapi-tags.js';
import type { RouteDeps } from './route-deps.js';
import { assertValid, assertValidQuery } from './validators.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/**
 * Who may call a route, which is both the middleware put in front of its handler and the security
 * its operation declares: `none` (anyone), `operator` (OPERATOR_TOKEN or a named operator token as
 * Bearer), `feedKeyOrHeader` (an approved feed key as Bearer or in x-feed-token), `pendingFeedKey`
 * (a feed key as Bearer, approved or still awaiting approval: whoami).
 */
export type Auth = 'none' | 'operator' | 'feedKeyOrHeader' | 'pendingFeedKey';

/** What the API description says of an operation beyond its method, path, name, group and security. */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** Path and query parameters (queryParameters('SomeQuery') publishes a query schema of api/schemas/). */
  parameters?: unknown[];
  /** The body, usually `{ required: true, content: json('SomeRequest') }` naming a schema of api/schemas/. */
  requestBody?: unknown;
  /** Answers by status; an operator route's 401 and 503 are added from its auth. */
  responses: Record<string, unknown>;
}

/** What a route's handler is given of its own declaration. */
export interface RouteSelf {
  /** The request's query checked against the route's query schema (400 naming the parameter otherwise), with its defaults. */
  validQuery<T = Record<string, unknown>>(req: { query: unknown }): T;
  /** The request's JSON body checked against the route's body schema (400 naming the field otherwise); a missing body is null. */
  validBody<T = Record<string, unknown>>(req: { body?: unknown }): T;
}

/** One route: how it is mounted, what it is called in the API description, who may call it, what it says and does. */
export interface RouteSpec extends OperationDoc {
  method: Method;
  /** The path as the API description writes it: `{name}` for a parameter. */
  path: string;
  operationId: string;
  tag: Tag;
  auth: Auth;
  /**
   * The query schema of api/schemas/ (an object schema named …Query): published as the operation's
   * query parameters after `parameters`, and what `validQuery` checks a request's query against.
   */
  query?: string;
  /**
   * The body schema of api/schemas/ (a …Request schema): published as the operation's required JSON
   * body (unless `requestBody` says more), and what `validBody` checks a request's body against.
   */
  body?: string;
  /** Publish the query schema's examples as the parameters' examples (Swagger UI's "Try it out" sends them). */
  queryExamples?: boolean;
  /** The route's own middleware and handler (after the auth check), made from the app's dependencies. */
  handle: (deps: RouteDeps, self: RouteSelf) => RequestHandler | RequestHandler[];
}

/** The Express form of a described path: `{name}` becomes `:name`. */
export const expressPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** The security an operation declares for its auth (`[]`: none needed). */
function securityOf(auth: Auth): unknown[] {
  if (auth === 'operator') return operatorSecurity;
  if (auth === 'feedKeyOrHeader') return [{ feedKey: [] }, { feedToken: [] }];
  if (auth === 'pendingFeedKey') return [{ feedKey: [] }];
  return [];
}

/** The middleware that enforces an auth (none for `none`, and none where the router already checks it). */
function guardOf(auth: Auth, deps: RouteDeps): RequestHandler[] {
  if (auth === 'operator') return [deps.operator];
  if (auth === 'feedKeyOrHeader') return [requireFeedKey(deps.db, { allowSuspended: false, allowHeaderToken: true })];
  if (auth === 'pendingFeedKey') return [requireFeedKey(deps.db, { allowSuspended: true, allowHeaderToken: false })];
  return [];
}

/** The route's handlers, given its own query check: one schema for what is described and what is checked. */
function handlersOf(spec: RouteSpec, deps: RouteDeps): RequestHandler[] {
  const self: RouteSelf = {
    validQuery: <T>(req: { query: unknown }) => {
      if (!spec.query) throw new Error(`${spec.method.toUpperCase()} ${spec.path} declares no query schema`);
      return assertValidQuery<T>(spec.query, req.query as Record<string, unknown>);
    },
    validBody: <T>(req: { body?: unknown }) => {
      if (!spec.body) throw new Error(`${spec.method.toUpperCase()} ${spec.path} declares no body schema`);
      return assertValid<T>(spec.body, req.body ?? null, 'body');
    },
  };
  return [spec.handle(deps, self)].flat();
}

/** Where the operator routes of the API live: only the admin router mounts them, behind its one check. */
export const ADMIN_PREFIX = '/v1/admin';
const isAdminPath = (path: string) => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);

/**
 * An Express router of routes, in the order given, each behind the check its auth names. A route
 * under /v1/admin is refused here: those belong to adminRouter, so no admin route can be mounted
 * without the operator check.
 */
export function routerOf(specs: readonly RouteSpec[], deps: RouteDeps): Router {
  const router = Router();
  for (const spec of specs) {
    if (isAdminPath(spec.path)) throw new Error(`${spec.method.toUpperCase()} ${spec.path} is an admin route: register it with adminRouter`);
    router[spec.method](expressPath(spec.path), ...guardOf(spec.auth, deps), ...handlersOf(spec, deps));
  }
  return router;
}

/**
 * A router whose first layer is one auth check for everything under `prefix`, then the routes:
 * every route must be under the prefix and declare that auth, so what the description says and
 * what the router enforces cannot disagree, and a request under the prefix that no route takes
 * (a wrong method, a wrong path) is refused by the check before anything else answers it.
 */
export function guardedRouter(prefix: string, auth: Exclude<Auth, 'none'>, specs: readonly RouteSpec[], deps: RouteDeps): Router {
  const router = Router();
  router.use(prefix, ...guardOf(auth, deps));
  for (const spec of specs) {
    if (!(spec.path === prefix || spec.path.startsWith(`${prefix}/`)) || spec.auth !== auth)
      throw new Error(`${spec.method.toUpperCase()} ${spec.path}: the router of ${prefix} takes only ${auth} routes under it`);
    router[spec.method](expressPath(spec.path), ...handlersOf(spec, deps));
  }
  return router;
}

/** The operator API: every route under /v1/admin, in one router behind the operator check. */
export const adminRouter = (specs: readonly RouteSpec[], deps: RouteDeps): Router => guardedRouter(ADMIN_PREFIX, 'operator', specs, deps);

/**
 * The API description's paths for routes: each operation's name, group and security from the
 * route, its text, parameters, body and answers as the route states them, and for operator routes
 * the operator credential's errors after its own.
 */
export function describeRoutes(specs: readonly RouteSpec[]): Record<string, Record<string, Record<string, unknown>>> {
  const paths: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const { method, path, operationId, tag, auth, handle: _handle, responses, query, queryExamples, parameters, body, ...doc } of specs) {
    paths[path] ??= {};
    if (paths[path][method]) throw new Error(`${method.toUpperCase()} ${path} is registered twice`);
    const described = [...(parameters ?? []), ...(query ? queryParameters(query, { examples: queryExamples }) : [])];
    paths[path][method] = {
      ...doc,
      ...(described.length ? { parameters: described } : {}),
      ...(body && !doc.requestBody ? { requestBody: { required: true, content: json(body) } } : {}),
      // Stated even when empty, so clients and linters need not guess that none is needed.
      security: securityOf(auth),
      responses: auth === 'operator' ? { ...responses, ...operatorErrors } : { ...responses },
      operationId,
      tags: [tag],
    };
  }
  return paths;
}

/**
 * One value per app made from its dependencies, for what the routes of a family share (a read
 * service, a limiter): made on first use, the same for every route of that app.
 */
export function perApp<T>(make: (deps: RouteDeps) => T): (deps: RouteDeps) => T {
  const made = new WeakMap<RouteDeps, T>();
  return (deps) => {
    if (!made.has(deps)) made.set(deps, make(deps));
    return made.get(deps) as T;
  };
}
