import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import { publicProjectSql, publicRecordSql } from '../pipeline/public-view.js';
import type { ProjectStage } from '../pipeline/types.js';

/** A project as the public sees it: without its content hash, with a withheld street left out. */
const PUBLIC_PROJECT = publicProjectSql();

export interface ProjectSearch {
  stage?: ProjectStage;
  country?: string;
  office?: string;
  limit: number;
  offset: number;
}

export interface ProjectReads {
  /** Non-archived projects, newest modTime first, then projectKey, as JSON text. */
  searchProjects(search: ProjectSearch): Promise<{ total: number; projectsJson: string[] }>;
  /** A non-archived project with its public child listings (document order), as JSON text; null when there is none. */
  getProjectJson(office: string, uniqueId: string): Promise<string | null>;
}

function projectFilters(db: Knex, s: ProjectSearch): Knex.QueryBuilder {
  const q = db('projects').whereNot('status', 'archived');
  if (s.stage) q.where('stage', s.stage);
  if (s.country) q.where('country', s.country);
  if (s.office) q.where('office', s.office);
  return q;
}

/** Data access for GET /v1/projects and GET /v1/projects/{office}/{uniqueId} (DESIGN.md §4). */
export function createProjectReads(db: Knex): ProjectReads {
  return {
    async searchProjects(search) {
      const [rows, [{ n }]] = await Promise.all([
        projectFilters(db, search)
          .select(db.raw(`${PUBLIC_PROJECT}::text AS json`))
          .orderBy([
            { column: 'mod_time', order: 'desc' },
            { column: 'project_key', order: 'asc' },
          ])
          .limit(search.limit)
          .offset(search.offset),
        projectFilters(db, search).count({ n: '*' }),
      ]);
      return { total: Number(n), projectsJson: rows.map((r: { json: string }) => r.json) };
    },

    async getProjectJson(office, uniqueId) {
      const key = listingKey(office, uniqueId);
      const { rows } = await db.raw(
        `SELECT (${publicProjectSql('p')} || jsonb_build_object('listings', coalesce((
                  SELECT jsonb_agg(${publicRecordSql('l')}
                                   ORDER BY array_position(ARRAY(SELECT jsonb_array_elements_text(p.data->'listingKeys')), l.listing_key), l.listing_key)
                  FROM listings l WHERE l.project_key = p.project_key AND l.is_public), '[]'::jsonb)))::text AS json
         FROM projects p WHERE p.project_key = ? AND p.status <> 'archived'`,
        [key],
      );
      return rows[0]?.json ?? null;
    },
  };
}
