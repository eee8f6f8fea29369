import { createProjectReads, type ProjectSearch } from '../../db/project-reads.js';
import { notFound } from '../../lib/errors.js';
import { sendCacheable } from '../cacheable.js';
import { errorResponse } from '../openapi-helpers.js';
import { cached, invalid, unavailable } from '../openapi-read-answers.js';
import { perApp, type RouteSpec } from '../route-registry.js';
import { sendPage } from './public-reads.js';

const projectReadsOf = perApp(({ readDb, config }) => createProjectReads(readDb, { pageMaxBytes: config.publicPageMaxBytes }));

/** GET /v1/projects and GET /v1/projects/{office}/{uniqueId} (no key needed). */
export const projectRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/projects',
    operationId: 'searchProjects',
    tag: 'reads',
    auth: 'none',
    summary: 'Search projects (new-home developments), newest modTime first, then projectKey',
    description: 'Every project not archived. Pushed with format=project; see the ProjectFeed schema.',
    query: 'ProjectSearchQuery',
    responses: { ...cached('A page and the total', 'ProjectPage'), 400: invalid, 503: unavailable },
    handle:
      (deps, { validQuery }) =>
      async (req, res) => {
        const reads = projectReadsOf(deps);
        const search = validQuery<ProjectSearch>(req);
        if (search.country) search.country = search.country.toUpperCase();
        sendPage(req, res, 'projects', await reads.searchProjects(search));
      },
  },
  {
    method: 'get',
    path: '/v1/projects/{office}/{uniqueId}',
    operationId: 'getProject',
    tag: 'reads',
    auth: 'none',
    summary: 'One project with its public child listings',
    parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    responses: {
      ...cached('The canonical project and its public listings', 'ProjectWithListings'),
      404: errorResponse('Unknown or archived project'),
      503: unavailable,
    },
    handle: (deps) => async (req, res) => {
      const reads = projectReadsOf(deps);
      const { office, uniqueId } = req.params as { office: string; uniqueId: string };
      const json = await reads.getProjectJson(office, uniqueId);
      if (!json) throw notFound(`no project ${office}/${uniqueId}`);
      sendCacheable(req, res, json);
    },
  },
];
