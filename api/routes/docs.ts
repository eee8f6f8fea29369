import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { buildOpenApi } from '../openapi.js';

/** /v1/openapi.json for machines, /docs for people (Swagger UI served from local assets). */
export function docsRouter(): Router {
  const router = Router();
  const document = buildOpenApi();
  router.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Listing service API' }));
  return router;
}
