import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { RouteDeps } from '../route-deps.js';
import type { RouteSpec } from '../route-registry.js';

/**
 * Swagger UI's own colours for method badges, version stamps, links and buttons fall below the
 * 4.5:1 contrast that WCAG AA asks for; these darker shades keep its look and pass.
 */
const ACCESSIBLE_CSS = `
.swagger-ui .info .title small { background: #4a5260; }
.swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui .info a, .swagger-ui a.link, .swagger-ui .info .link, .swagger-ui .renderedMarkdown a, .swagger-ui .markdown a { color: #1f5fbf; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5fa8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #0b6e45; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4f00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0b6b59; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #4a5260; }
.swagger-ui .btn.authorize, .swagger-ui .btn.authorize span { color: #0b6e45; border-color: #0b6e45; }
.swagger-ui .btn.authorize svg { fill: #0b6e45; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a4a4a; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated, .swagger-ui .prop-format, .swagger-ui .parameter__extension, .swagger-ui .response-col_links { color: #4a4a4a; }
.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required::after { color: #b3261e; }
.swagger-ui .response-control-media-type__accept-message { color: #0b5e0b; }
.swagger-ui .opblock-tag small, .swagger-ui .opblock-description-wrapper p, .swagger-ui table thead tr th { color: #2f3b45; }
`;

const A11Y_SCRIPT = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../api/pages/docs/docs-a11y.js'), 'utf8');

/**
 * /v1/openapi.json for machines, /docs for people (Swagger UI served from local assets), both the
 * API description the app built once (buildOpenApi). The page has no deep links inside
 * its operation buttons (a link inside a button cannot be reached by the keyboard), code samples
 * in plain colours (the highlighter's palette is too faint to read), and no server
 * menu (there is one server, the page's own); darker colours and a script that names Swagger
 * UI's unnamed menus and makes its code samples reachable let it pass axe-core's serious checks.
 */
export const openApiRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApi',
    tag: 'system',
    auth: 'none',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
    handle:
      ({ apiDocument }) =>
      (_req, res) => {
        res.json(apiDocument);
      },
  },
];

/** /docs, Swagger UI over the API description (deps.apiDocument), and its accessibility script. */
export function docsRouter({ apiDocument: document }: Pick<RouteDeps, 'apiDocument'>): Router {
  const router = Router();
  router.get('/docs-a11y.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(A11Y_SCRIPT);
  });
  const { servers: _sameOrigin, ...shown } = document;
  router.use(
    '/docs',
    swaggerUi.serve,
    swaggerUi.setup(shown, {
      customSiteTitle: 'Listing service API',
      customCss: ACCESSIBLE_CSS,
      customJs: '/docs-a11y.js',
      swaggerOptions: { deepLinking: false, syntaxHighlight: { activated: false } },
    }),
  );
  return router;
}
