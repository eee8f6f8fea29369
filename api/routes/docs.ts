import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
/**
 * /v1/openapi.json for machines, /docs for people (Swagger UI served from local assets); document:
 * the API description, built once by the app (buildOpenApi).
 */
export function docsRouter(document: Record<string, unknown>): Router {
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Listing service API' }));
  return router;
}
