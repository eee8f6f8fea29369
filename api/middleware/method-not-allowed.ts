import type { RequestHandler } from 'express';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * For a request no route answered: a path the API description has, asked with another method, is a
 * 405 naming the methods it takes (`Allow`), not a 404 that says the path does not exist.
 * paths: the API description's paths object ("/v1/listings/{office}/{uniqueId}": { get: … }).
 */
export function methodNotAllowed(paths: Record<string, Record<string, unknown>>): RequestHandler {
  const routes = Object.entries(paths).map(([path, operations]) => {
    const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    const methods = METHODS.filter((m) => m in operations).map((m) => m.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    return { pattern: new RegExp(`^${pattern}/?$`), methods };
  });
  return (req, res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (!route || route.methods.includes(req.method)) return next();
    res
      .set('allow', route.methods.join(', '))
      .status(405)
      .json({ error: `${req.method} is not allowed on ${req.path}; it takes ${route.methods.join(', ')}` });
  };
}
