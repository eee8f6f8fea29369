import { expect } from 'chai';
import type { Express } from 'express';
import { buildOpenApi } from '../../api/openapi.js';
import { startTestService, type TestService } from '../service.js';

/** Mounted routers whose routes are pages or another program's (not the JSON API the description covers). */
const NOT_API = /^\/(?!v1\/|healthz$|readyz$|metrics$|admin\/session$)/;

/** Every route the app mounts, as "METHOD /path/{param}", walking the routers it uses. */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = String(layer.route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        for (const method of Object.keys(layer.route.methods)) if (method !== '_all') found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack);
  return found;
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

  it('mounts exactly the operations the API description has', () => {
    const mounted = new Set(mountedRoutes(svc.app).filter((r) => !NOT_API.test(r.split(' ')[1]) && !r.startsWith('HEAD ')));
    const paths = buildOpenApi().paths as Record<string, Record<string, unknown>>;
    const documented = new Set(
      Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k))
          .map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect([...mounted].filter((r) => !documented.has(r)).sort(), 'mounted but not documented').to.deep.equal([]);
    expect([...documented].filter((r) => !mounted.has(r)).sort(), 'documented but not mounted').to.deep.equal([]);
  });
});
