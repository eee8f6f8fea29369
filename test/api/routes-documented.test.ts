import { expect } from 'chai';
import type { Express } from 'express';
import { buildOpenApi } from '../../api/openapi.js';
import { ADMIN_PREFIX } from '../../api/route-registry.js';
import { REGISTERED_ROUTES } from '../../api/route-table.js';
import { startTestService, type TestService } from '../service.js';

/**
 * Mounted routes the API description leaves out on purpose, each named with why: pages for people
 * and the files they load. Nothing else may be mounted undocumented, and each entry here must be
 * mounted (a stale exclusion fails too).
 */
const NOT_IN_DESCRIPTION: Record<string, string> = {
  'GET /': 'the home page',
  'GET /developer': 'the developer page (a key request and a dry run in a browser)',
  'GET /developer/developer.js': "the developer page's script",
  'GET /developer/developer.css': "the developer page's styles",
  'GET /docs-a11y.js': "the API docs page's script",
  'GET /console': 'the operator console page',
  'GET /guides/{name}': 'the guides, pages for people',
  'GET /alerts/confirm': "the page an alert mail's confirm link opens",
  'POST /alerts/confirm': "that page's form",
  'GET /alerts/unsubscribe': "the page an alert mail's unsubscribe link opens",
  'POST /alerts/unsubscribe': "that page's form (and one-click unsubscribe)",
  'GET /alerts/manage': "the page an alert mail's manage link opens",
  'POST /alerts/manage/delete': "that page's form",
};
/** Folders of files left out as a whole (each file of theirs is a route of its own). */
const NOT_IN_DESCRIPTION_UNDER: Record<string, string> = {
  'GET /console/': "the console's Preact modules, styles and vendored libraries (api/pages/console)",
};

/** Every route the app mounts, as "METHOD /path/{param}", walking the routers it uses. */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = String(layer.route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        for (const method of Object.keys(layer.route.methods)) if (method !== '_all' && method !== 'head') found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack);
  return found;
}

const excluded = (route: string) => route in NOT_IN_DESCRIPTION || Object.keys(NOT_IN_DESCRIPTION_UNDER).some((prefix) => route.startsWith(prefix));

/** Every operation of the API description as "METHOD /path". */
function documentedOperations(): string[] {
  const paths = buildOpenApi().paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

describe('a route is its operation: every mounted API route is documented, every documented operation mounted', function () {
  this.timeout(180_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'pglite' });
  });
  after(async () => {
    await svc?.close();
  });

  it('mounts exactly the operations the API description has, apart from the named pages', () => {
    const all = mountedRoutes(svc.app);
    const mounted = new Set(all.filter((r) => !excluded(r)));
    const documented = new Set(documentedOperations());
    expect([...mounted].filter((r) => !documented.has(r)).sort(), 'mounted but not documented').to.deep.equal([]);
    expect([...documented].filter((r) => !mounted.has(r)).sort(), 'documented but not mounted').to.deep.equal([]);
    expect(
      Object.keys(NOT_IN_DESCRIPTION).filter((r) => !all.includes(r)),
      'excluded but not mounted',
    ).to.deep.equal([]);
    for (const prefix of Object.keys(NOT_IN_DESCRIPTION_UNDER))
      expect(
        all.some((r) => r.startsWith(prefix)),
        `${prefix}… mounted`,
      ).to.equal(true);
  });

  it('describes each registered route under its own name, with the security its auth enforces', () => {
    const paths = buildOpenApi().paths as Record<string, Record<string, { operationId: string; security: unknown[] }>>;
    for (const route of REGISTERED_ROUTES) {
      const operation = paths[route.path]?.[route.method];
      expect(operation?.operationId, `${route.method} ${route.path}`).to.equal(route.operationId);
      expect(operation.security.length > 0, `${route.method} ${route.path} declares a credential`).to.equal(route.auth !== 'none');
    }
  });

  it('answers 401 to every /v1/admin route without an operator credential, and with a wrong one', async () => {
    const admin = mountedRoutes(svc.app).filter((r) => r.split(' ')[1].startsWith(`${ADMIN_PREFIX}/`));
    expect(admin.length, 'admin routes mounted').to.be.greaterThan(40);
    for (const route of admin) {
      const [method, template] = route.split(' ');
      const path = template.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const authorization of [undefined, 'Bearer not-the-operator-token', 'Bearer lop_not-a-token']) {
        const res = await fetch(`${svc.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: method === 'GET' ? undefined : '{}',
        });
        expect(res.status, `${route} with ${authorization ?? 'no credential'}`).to.equal(401);
        expect((await res.json()).error, route).to.match(/operator credential/);
      }
    }
  });
});
