import { Router } from 'express';
import type { ProjectReads, ProjectSearch } from '../../db/project-reads.js';
import { notFound } from '../../lib/errors.js';
import { sendCacheable } from '../cacheable.js';
import { assertValidQuery } from '../validators.js';
import { sendPage } from './public-reads.js';

/** GET /v1/projects and GET /v1/projects/{office}/{uniqueId} (no key needed). */
export function projectsRouter(reads: ProjectReads): Router {
  const router = Router();

  router.get('/v1/projects', async (req, res) => {
    const search = assertValidQuery<ProjectSearch>('ProjectSearchQuery', req.query);
    if (search.country) search.country = search.country.toUpperCase();
    sendPage(req, res, 'projects', await reads.searchProjects(search));
  });

  router.get('/v1/projects/:office/:uniqueId', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const json = await reads.getProjectJson(office, uniqueId);
    if (!json) throw notFound(`no project ${office}/${uniqueId}`);
    sendCacheable(req, res, json);
  });

  return router;
}
